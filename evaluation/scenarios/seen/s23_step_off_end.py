# stopOnEntry
# actions: next next next next next
a = 1
b = a + 1
