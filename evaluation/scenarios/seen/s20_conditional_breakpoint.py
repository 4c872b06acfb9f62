# actions: continue continue
def check(n):
    flag = n % 2  # BP if n == 3
    return flag


for n in range(5):
    check(n)
