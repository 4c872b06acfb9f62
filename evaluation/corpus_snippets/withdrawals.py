class InsufficientFunds(Exception):
    def __init__(self, needed):
        super().__init__("need " + str(needed))
        self.needed = needed


class Account:
    def __init__(self, balance):
        self.balance = balance

    def withdraw(self, amount):
        if amount > self.balance:
            raise InsufficientFunds(amount - self.balance)
        self.balance -= amount
        return self.balance


def run_withdrawals(start, amounts):
    acct = Account(start)
    failures = []
    for amount in amounts:
        try:
            acct.withdraw(amount)
        except InsufficientFunds as exc:
            failures.append(exc.needed)
    return acct.balance, failures
