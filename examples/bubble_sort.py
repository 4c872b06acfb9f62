"""An example program for the neural debugger: sort a list, counting the swaps."""


def bubble_sort(items):
    result = list(items)
    swaps = 0
    for i in range(len(result)):
        for j in range(len(result) - 1 - i):
            if result[j] > result[j + 1]:
                result[j], result[j + 1] = result[j + 1], result[j]
                swaps += 1
    return result


if __name__ == "__main__":
    print(bubble_sort([5, 2, 9, 1]))
