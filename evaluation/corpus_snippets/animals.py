class Animal:
    sound = "..."

    def __init__(self, name):
        self.name = name

    def speak(self):
        return f"{self.name} says {self.sound}"


class Dog(Animal):
    sound = "woof"


class Puppy(Dog):
    def speak(self):
        base = super().speak()
        return base + "!"


class Cat(Animal):
    sound = "meow"

    def __repr__(self):
        return "Cat(" + repr(self.name) + ")"


def chorus(names):
    kinds = [Dog, Puppy, Cat]
    result = []
    for i, name in enumerate(names):
        pet = kinds[i % 3](name)
        result.append(pet.speak())
    return result
