"""A module with a type stub next to it."""


class Price:
    def __init__(self, amount):
        self.amount = amount

    def add(self, other):
        return Price(self.amount + other.amount)


def parse_price(text):
    return Price(float(text))
