# actions: next next next next
def work(n):
    acc = 0
    for i in range(n):
        acc += i  # BP
    return acc


start = 1  # BP
done = work(2)
print(done)
