# stopOnEntry
# actions: next next next next next next next
import math

radius = 2.0
area = math.pi * radius ** 2
if area > 10:
    label = "big"
else:
    label = "small"
print(label)
