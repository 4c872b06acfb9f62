"""Everyday scripts: the module-level programs a user opens in an editor and runs with F5.

Why: the project's own generator writes scripts too (:mod:`.generator`), but from random
statements over a handful of types. A user's script looks different: module constants, a
class or a dataclass with methods and attributes, a helper function, a loop over words or
records, a dictionary of counts, ``try``/``except``/``finally``, ``with``, a generator, a bit
of recursion, and a few prints, all leaning on library methods (``str.split``,
``dict.get``, ``sorted(..., key=...)``, f-string format specs). Each *theme* here (an
inventory, a word count, a grade book, a bank account, log parsing, a state machine...)
composes such a script from building blocks, drawing names, values and structure (class or
dataclass, which methods, which error handling, a ``main()`` guard or not) at random.

No script holds a set of strings: its order, shown in every state, changes with the hash
seed. Programs run as ``__main__`` (``entry`` is None) and are validated by tracing like every
training program; they are new code each draw, so like the generator's they are split by
program, not by theme (``origin`` is ``everyday:THEME``). Deterministic in ``(seed, count)``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from string import Template

from . import drill_values as values
from .base import TrainingProgram
from .validate import check_program

ATTEMPTS = 40


def _render(template: str, **fields: object) -> str:
    """The template with ``$name`` fields filled; runs of blank lines cut to two at most (an
    optional block left out leaves a gap)."""
    text = Template(template).substitute({k: str(v) for k, v in fields.items()})
    lines = [line.rstrip() for line in text.strip("\n").split("\n")]
    out: list[str] = []
    for line in lines:
        if line or len(out) < 2 or out[-1] or out[-2]:
            out.append(line)
    return "\n".join(out) + "\n"


def _main_guard(rng: random.Random, body: str) -> str:
    """Module-level statements, as they are or inside ``main()`` behind the usual guard."""
    if rng.random() < 0.5:
        return body
    inner = "\n".join("    " + line if line else "" for line in body.split("\n"))
    return f'def main():\n{inner}\n\n\nif __name__ == "__main__":\n    main()'


def _inventory(rng: random.Random) -> str:
    cls = rng.choice(("Item", "Product", "Article", "StockItem"))
    store = rng.choice(("Inventory", "Store", "Warehouse", "Shop"))
    tax = rng.choice((0.05, 0.08, 0.2, 0.0))
    picked = rng.sample(values.ITEMS, rng.randint(2, 4))
    rows = [(p, round(rng.uniform(0.5, 12), 2), rng.randint(0, 9)) for p in picked]
    missing = rng.choice((rng.choice(values.ITEMS), picked[0]))
    dataclass = rng.random() < 0.6
    if dataclass:
        item_def = f"""@dataclass
class {cls}:
    name: str
    price: float
    quantity: int = 0

    def value(self) -> float:
        return self.price * self.quantity"""
    else:
        item_def = f"""class {cls}:
    def __init__(self, name, price, quantity=0):
        self.name = name
        self.price = price
        self.quantity = quantity

    def value(self):
        return self.price * self.quantity"""
    low = rng.choice(
        (
            "",
            """
    def low_stock(self, limit=$limit):
        return sorted(i.name for i in self.items.values() if i.quantity < limit)""",
        )
    )
    body = _main_guard(
        rng,
        f"""shop = {store}()
for name, price, qty in $rows:
    shop.add({cls}(name, price, qty))
try:
    shop.remove($missing, $take)
except KeyError as err:
    print("unknown item:", err)
except ValueError as err:
    print("cannot remove:", err)
print(f"total with tax: {{shop.total():.2f}}")"""
        + ("\nprint(shop.low_stock())" if low else ""),
    )
    return _render(
        f"""{"from dataclasses import dataclass" if dataclass else ""}

TAX_RATE = $tax


{item_def}


class {store}:
    def __init__(self):
        self.items = {{}}

    def add(self, item):
        if item.name in self.items:
            self.items[item.name].quantity += item.quantity
        else:
            self.items[item.name] = item

    def remove(self, name, count):
        item = self.items[name]
        if count > item.quantity:
            raise ValueError(f"only {{item.quantity}} {{name}} left")
        item.quantity -= count

    def total(self):
        subtotal = sum(item.value() for item in self.items.values())
        return subtotal * (1 + TAX_RATE)
{low}


{body}
""",
        rows=values.lit(rows),
        tax=tax,
        missing=values.lit(missing),
        take=rng.randint(1, 5),
        limit=rng.randint(2, 5),
    )


def _word_count(rng: random.Random) -> str:
    text = " ".join(rng.sample(values.SENTENCES[:12], rng.randint(1, 2)))
    stop = rng.sample(("the", "a", "and", "of", "to", "is", "it", "was", "or"), 3)
    counter = rng.random() < 0.5
    strip = rng.choice(('word.strip(".,!?:;")', "word.strip(PUNCTUATION)"))
    count_block = (
        "counts = Counter(words)"
        if counter
        else "counts = {}\nfor word in words:\n    counts[word] = counts.get(word, 0) + 1"
    )
    top = (
        "counts.most_common($k)"
        if counter
        else "sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))[:$k]"
    )
    body = _main_guard(
        rng,
        f"""words = tokenize(TEXT)
{count_block}
print(len(words), "words,", len(counts), "distinct")
for word, n in {top}:
    print(f"{{word:<10}}{{n:>3}}")""",
    )
    return _render(
        f"""{"from collections import Counter" if counter else ""}

TEXT = $text
STOP_WORDS = $stop
PUNCTUATION = ".,!?:;"


def tokenize(text):
    words = []
    for word in text.lower().split():
        word = {strip}
        if word and word not in STOP_WORDS:
            words.append(word)
    return words


{body}
""",
        text=values.lit(text),
        stop=values.lit(tuple(stop)) if rng.random() < 0.5 else values.lit(stop),
        k=rng.randint(1, 3),
    )


def _grade_book(rng: random.Random) -> str:
    students = rng.sample(values.NAMES, rng.randint(2, 4))
    grades = {s: [rng.randint(40, 100) for _ in range(rng.randint(0, 3))] for s in students}
    cls = rng.choice(("GradeBook", "Course", "ClassRecord"))
    cut = rng.choice(((90, 80, 70), (85, 70, 55)))
    return _render(
        f"""PASS_MARK = $pass_mark


def letter(score):
    if score >= $a:
        return "A"
    elif score >= $b:
        return "B"
    elif score >= $c:
        return "C"
    return "F"


class {cls}:
    def __init__(self, name):
        self.name = name
        self.grades = {{}}

    def add(self, student, score):
        self.grades.setdefault(student, []).append(score)

    def average(self, student):
        scores = self.grades.get(student, [])
        if not scores:
            return 0.0
        return sum(scores) / len(scores)

    def report(self):
        rows = []
        for student in sorted(self.grades, key=self.average, reverse=True):
            avg = self.average(student)
            rows.append((student, round(avg, 1), letter(avg)))
        return rows


book = {cls}($course)
for student, scores in $grades.items():
    for score in scores:
        book.add(student, score)
report = book.report()
for student, avg, grade in report[:$show]:
    print(f"{{student:8}} {{avg:5.1f}} {{grade}}")
passed = [s for s, avg, _ in report if avg >= PASS_MARK]
print("passed:", ", ".join(passed) or "nobody")
""",
        pass_mark=rng.choice((50, 60, 65)),
        a=cut[0],
        b=cut[1],
        c=cut[2],
        course=values.lit(rng.choice(("Math", "History", "Biology", "Art"))),
        grades=values.lit(grades),
        show=rng.randint(1, 3),
    )


def _bank_account(rng: random.Random) -> str:
    owner = rng.choice(values.NAMES)
    ops = [(rng.choice(("deposit", "withdraw", "withdraw")), rng.randint(5, 120)) for _ in
           range(rng.randint(2, 5))]  # fmt: skip
    exc = rng.choice(("InsufficientFunds", "OverdraftError", "BalanceError"))
    finally_block = rng.choice(
        ("", "    finally:\n        attempts += 1\n", "    else:\n        done += 1\n")
    )
    counters = "attempts = 0\ndone = 0\n"
    return _render(
        f"""class {exc}(Exception):
    pass


class Account:
    def __init__(self, owner, balance=0):
        self.owner = owner
        self.balance = balance
        self.history = []

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("amount must be positive")
        self.balance += amount
        self.history.append(("deposit", amount))

    def withdraw(self, amount):
        if amount > self.balance:
            raise {exc}(f"{{self.owner}} has only {{self.balance}}")
        self.balance -= amount
        self.history.append(("withdraw", amount))

    def __repr__(self):
        return f"Account({{self.owner!r}}, {{self.balance}})"


account = Account($owner, $start)
{counters}failed = []
for action, amount in $ops:
    try:
        getattr(account, action)(amount)
    except {exc} as err:
        failed.append(str(err))
{finally_block}print(account)
print(len(account.history), "ok,", len(failed), "failed")
""",
        owner=values.lit(owner),
        start=rng.choice((0, 50, 100, 250)),
        ops=values.lit(ops),
    )


_LEVELS = ("INFO", "WARNING", "ERROR", "DEBUG")
_MESSAGES = ("disk full", "user login", "timeout after 30s", "cache miss", "saved report.pdf",
             "retrying connection", "payment received", "config loaded")  # fmt: skip


def _log_parsing(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(2, 5)):
        lines.append(f"2024-0{rng.randint(1, 9)}-{rng.randint(10, 28)} "
                     f"{rng.choice(_LEVELS)} {rng.choice(_MESSAGES)}")  # fmt: skip
    if rng.random() < 0.4:
        lines.append(rng.choice(("", "garbage", "2024-13-01")))
    wanted = rng.choice(("ERROR", "WARNING"))
    parse = rng.choice((
        "date, level, message = line.split(maxsplit=2)",
        "date, rest = line.split(' ', 1)\n            level, _, message = rest.partition(' ')",
    ))  # fmt: skip
    return _render(
        f"""LOG = $log


def parse(lines):
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            {parse}
        except ValueError:
            print("skipped:", repr(line))
            continue
        yield date, level, message


by_level = {{}}
for date, level, message in parse(LOG.splitlines()):
    by_level.setdefault(level, []).append(message)
summary = {{level: len(msgs) for level, msgs in by_level.items()}}
print(summary)
print($wanted, "->", by_level.get($wanted, []))
""",
        log=values.lit("\n".join(lines)),
        wanted=values.lit(wanted),
    )


_MACHINES = (
    ("locked", {("locked", "coin"): "unlocked", ("unlocked", "push"): "locked",
                ("locked", "push"): "locked", ("unlocked", "coin"): "unlocked"},
     ("coin", "push")),
    ("red", {("red", "next"): "green", ("green", "next"): "yellow",
             ("yellow", "next"): "red", ("green", "stop"): "red", ("yellow", "stop"): "red"},
     ("next", "stop")),
    ("idle", {("idle", "start"): "running", ("running", "pause"): "paused",
              ("paused", "start"): "running", ("running", "stop"): "idle",
              ("paused", "stop"): "idle"},
     ("start", "pause", "stop")),
)  # fmt: skip


def _state_machine(rng: random.Random) -> str:
    start, table, events = rng.choice(_MACHINES)
    seq = [rng.choice(events) for _ in range(rng.randint(2, 6))]
    strict = rng.random() < 0.5
    step = (
        "        try:\n            self.state = TRANSITIONS[(self.state, event)]\n"
        "        except KeyError:\n            self.ignored += 1\n            return False"
        if strict
        else "        new = TRANSITIONS.get((self.state, event))\n        if new is None:\n"
        "            self.ignored += 1\n            return False\n        self.state = new"
    )
    cls = rng.choice(("Machine", "Turnstile", "Controller", "Door"))
    return _render(
        f"""TRANSITIONS = $table


class {cls}:
    def __init__(self, state=$start):
        self.state = state
        self.history = [state]
        self.ignored = 0

    def send(self, event):
{step}
        self.history.append(self.state)
        return True


machine = {cls}()
results = [machine.send(event) for event in $seq]
print(" -> ".join(machine.history))
print(f"{{results.count(True)}} moves, {{machine.ignored}} ignored")
""",
        table=values.lit(table),
        start=values.lit(start),
        seq=values.lit(seq),
    )


def _recursion(rng: random.Random) -> str:
    kind = rng.randrange(3)
    if kind == 0:
        return _render(
            """def flatten(items):
    flat = []
    for item in items:
        if isinstance(item, list):
            flat.extend(flatten(item))
        else:
            flat.append(item)
    return flat


def depth(items):
    if not isinstance(items, list) or not items:
        return 0
    return 1 + max(depth(item) for item in items)


DATA = $nested
print(flatten(DATA), depth(DATA))
""",
            nested=values.lit(_nested(rng, 3)),
        )
    if kind == 1:
        name = rng.choice(("ways", "count_paths", "climb", "stairs"))
        moves = rng.choice(((1, 2), (1, 2, 3), (1, 3), (2, 3)))
        memo = rng.random() < 0.5
        head = (
            f"from functools import lru_cache\n\n\n@lru_cache(maxsize=None)\ndef {name}(steps):"
            if memo
            else f"CACHE = {{}}\n\n\ndef {name}(steps):"
        )
        check = "" if memo else "    if steps in CACHE:\n        return CACHE[steps]"
        store = "" if memo else "\n    CACHE[steps] = total"
        return _render(
            f"""{head}
    \"\"\"Ways to climb ``steps`` stairs taking $moves at a time.\"\"\"
{check}
    if steps == 0:
        return 1
    if steps < 0:
        return 0
    total = sum({name}(steps - move) for move in $moves){store}
    return total


results = {{n: {name}(n) for n in range($low, $high)}}
print(", ".join(f"{{n}}->{{count}}" for n, count in results.items()))
""",
            moves=values.lit(moves),
            low=rng.randint(0, 3),
            high=rng.randint(4, 7),
        )
    suffix = rng.choice((".py", ".md", ".txt"))
    return _render(
        """TREE = $tree


def total_size(node):
    return node["size"] + sum(total_size(child) for child in node.get("children", []))


def paths(node, prefix=""):
    path = f"{prefix}/{node['name']}"
    found = [path]
    for child in node.get("children", []):
        found += paths(child, path)
    return found


every = paths(TREE)
print(total_size(TREE), len(every))
print([p for p in every if p.endswith($suffix)][-$k:])
""",
        tree=values.lit(_tree(rng, 2)),
        suffix=values.lit(suffix),
        k=rng.randint(1, 3),
    )


def _tree(rng: random.Random, depth: int, name: str = "root") -> dict:
    """A folder tree: leaves are files with a suffix and no ``children`` key."""
    node: dict = {"name": name, "size": rng.randint(0, 40)}
    if depth > 0:
        node["children"] = [
            _tree(rng, depth - 1, rng.choice(("src", "docs", "tests", "data", "lib")))
            if rng.random() < 0.4
            else {"name": values.word(rng).lower() + rng.choice((".py", ".md", ".txt")),
                  "size": rng.randint(1, 90)}
            for _ in range(rng.randint(1, 3))
        ]  # fmt: skip
    return node


def _nested(rng: random.Random, depth: int) -> list:
    """A small nested list of words and numbers, ``depth`` levels at most."""
    out: list = []
    for _ in range(rng.randint(0, 3)):
        if depth > 0 and rng.random() < 0.4:
            out.append(_nested(rng, depth - 1))
        else:
            out.append(rng.choice((rng.randint(0, 9), values.word(rng))))
    return out


def _generators(rng: random.Random) -> str:
    data = values.ints(rng, 2, 7)
    size = rng.randint(2, 3)
    sep = rng.choice((",", ";", " ", ", "))
    return _render(
        """def chunks(items, size):
    for start in range(0, len(items), size):
        yield items[start:start + size]


def running_average(items):
    total = 0
    for count, value in enumerate(items, start=1):
        total += value
        yield round(total / count, 2)


RAW = $raw
READINGS = [int(part) for part in RAW.split("$sep") if part.strip()]
groups = list(chunks(READINGS, $size))
print(groups)
averages = running_average(READINGS)
first = next(averages)
print(first, max(averages, default=first))
""",
        raw=values.lit(sep.join(str(v) for v in data) + rng.choice(("", sep))),
        sep=sep,
        size=size,
    )


def _with_blocks(rng: random.Random) -> str:
    name = rng.choice(("session", "report", "connection", "batch"))
    fail = rng.random() < 0.5
    items = rng.sample(values.ITEMS, rng.randint(1, 3))
    generator_based = rng.random() < 0.5
    if generator_based:
        manager = """from contextlib import contextmanager

EVENTS = []


@contextmanager
def opened(name):
    EVENTS.append(f"open {name}")
    try:
        yield []
    finally:
        EVENTS.append(f"close {name}")"""
    else:
        manager = """EVENTS = []


class opened:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        EVENTS.append(f"open {self.name}")
        return []

    def __exit__(self, kind, error, traceback):
        EVENTS.append(f"close {self.name}")
        return False"""
    risky = "            if item == $bad:\n                raise RuntimeError(f'bad item {item}')\n"
    return _render(
        f"""{manager}


def fill(name, items):
    with opened(name) as lines:
        for item in items:
{risky if fail else ""}            lines.append(item.upper())
        return len(lines)


try:
    print(fill($name, $items))
except RuntimeError as err:
    print("failed:", err)
print(EVENTS)
""",
        name=values.lit(name),
        items=values.lit(items),
        bad=values.lit(rng.choice(items)),
    )


def _shopping_cart(rng: random.Random) -> str:
    items = [(p, round(rng.uniform(1, 30), 2), rng.randint(1, 3)) for p in
             rng.sample(values.ITEMS, rng.randint(1, 4))]  # fmt: skip
    codes = {"SAVE10": 0.1, "HALF": 0.5, "WELCOME": 0.15}
    code = rng.choice((*codes, "BOGUS", "save10"))
    return _render(
        """from dataclasses import dataclass, field

DISCOUNTS = $codes


@dataclass
class Line:
    name: str
    price: float
    quantity: int = 1

    @property
    def subtotal(self):
        return round(self.price * self.quantity, 2)


@dataclass
class Cart:
    lines: list = field(default_factory=list)
    discount: float = 0.0

    def add(self, name, price, quantity=1):
        self.lines.append(Line(name, price, quantity))

    def apply(self, code):
        self.discount = DISCOUNTS.get(code.upper(), 0.0)
        return self.discount > 0

    def total(self):
        return round(sum(line.subtotal for line in self.lines) * (1 - self.discount), 2)


cart = Cart()
for name, price, qty in $items:
    cart.add(name, price, qty)
print("code accepted:", cart.apply($code))
print(f"{len(cart.lines)} lines, total {cart.total():.2f}")
""",
        codes=values.lit(codes),
        items=values.lit(items),
        code=values.lit(code),
    )


def _conversions(rng: random.Random) -> str:
    kind = rng.randrange(2)
    if kind == 0:
        temps = [
            f"{rng.choice((-40, -5, 0, 12, 21.5, 37, 100, 68, 98.6))}{rng.choice('CFcf')}"
            for _ in range(rng.randint(2, 4))
        ]
        sep = rng.choice((",", ", ", ";", " "))
        return _render(
            """FREEZING = 32
READINGS = $readings


def to_celsius(reading):
    reading = reading.strip().upper()
    value = float(reading.rstrip("CF"))
    if reading.endswith("F"):
        return round((value - FREEZING) * 5 / 9, 1)
    return value


def describe(celsius):
    if celsius <= 0:
        return "freezing"
    if celsius < 20:
        return "cool"
    return "warm"


for reading in READINGS.split("$sep"):
    c = to_celsius(reading)
    print(f"{reading.strip():>6} = {c:6.1f}C ({describe(c)})")
""",
            readings=values.lit(sep.join(temps)),
            sep=sep.strip() or sep,
        )
    records = [f"{rng.choice(values.NAMES)},{rng.randint(18, 80)},{rng.choice(values.CITIES)}"
               for _ in range(rng.randint(1, 4))]  # fmt: skip
    if rng.random() < 0.4:
        records.insert(rng.randint(0, len(records)), rng.choice(("bad line", "Ann,old,Rome")))
    return _render(
        """CSV = $csv
HEADER = ("name", "age", "city")

people = []
for number, row in enumerate(CSV.strip().splitlines(), start=1):
    fields = [part.strip() for part in row.split(",")]
    if len(fields) != len(HEADER):
        print(f"line {number}: expected {len(HEADER)} fields")
        continue
    record = dict(zip(HEADER, fields))
    try:
        record["age"] = int(record["age"])
    except ValueError:
        print(f"line {number}: bad age {record['age']!r}")
        continue
    people.append(record)

oldest = max(people, key=lambda p: p["age"], default=None)
print(len(people), oldest and oldest["name"])
""",
        csv=values.lit("\n".join(records)),
    )


def _todo_list(rng: random.Random) -> str:
    tasks = [
        (rng.choice(("write report", "call Bob", "buy milk", "fix bug #12", "water plants",
                     "book flights", "pay rent", "review PR")), rng.randint(1, 3),
         rng.random() < 0.4)
        for _ in range(rng.randint(2, 5))
    ]  # fmt: skip
    cls = rng.choice(("Task", "Todo", "Chore"))
    enum = rng.random() < 0.5
    priority = (
        "from enum import Enum\n\n\nclass Priority(Enum):\n    LOW = 1\n    MEDIUM = 2\n"
        "    HIGH = 3\n"
        if enum
        else "PRIORITY_NAMES = {1: 'low', 2: 'medium', 3: 'high'}\n"
    )
    label = "Priority(self.priority).name.lower()" if enum else "PRIORITY_NAMES[self.priority]"
    return _render(
        f"""from dataclasses import dataclass
{priority}

@dataclass
class {cls}:
    title: str
    priority: int = 1
    done: bool = False

    def label(self):
        mark = "x" if self.done else " "
        return f"[{{mark}}] {{self.title}} ({{{label}}})"


todo = [{cls}(title, priority, done) for title, priority, done in $tasks]
todo.sort(key=lambda task: (task.done, -task.priority))
for number, task in enumerate(todo[:$show], start=1):
    print(number, task.label())
left = [task.title for task in todo if not task.done]
print(f"{{len(left)}} of {{len(todo)}} left")
""",
        tasks=values.lit(tasks),
        show=rng.randint(1, 3),
    )


def _queue_simulation(rng: random.Random) -> str:
    customers = [(rng.choice(values.NAMES), rng.randint(1, 4)) for _ in range(rng.randint(2, 5))]
    tellers = rng.randint(1, 2)
    return _render(
        """from collections import deque

TELLERS = $tellers

queue = deque($customers)
served = []
minute = 0
while queue:
    minute += 1
    for _ in range(min(TELLERS, len(queue))):
        name, items = queue.popleft()
        if items > 1:
            queue.append((name, items - 1))
        else:
            served.append((name, minute))
print(f"done after {minute} minutes")
print(", ".join(f"{name}@{when}" for name, when in served))
""",
        tellers=tellers,
        customers=values.lit(customers),
    )


def _tic_tac_toe(rng: random.Random) -> str:
    cells = [rng.choice("XO.") for _ in range(9)]
    rows = ["".join(cells[i : i + 3]) for i in (0, 3, 6)]
    return _render(
        """BOARD = $rows
LINES = [[(r, c) for c in range(3)] for r in range(3)]
LINES += [[(r, c) for r in range(3)] for c in range(3)]
LINES += [[(i, i) for i in range(3)], [(i, 2 - i) for i in range(3)]]


def winner(board):
    for line in LINES:
        marks = [board[r][c] for r, c in line]
        if marks.count(marks[0]) == 3 and marks[0] != ".":
            return marks[0]
    return None


empty = sum(row.count(".") for row in BOARD)
result = winner(BOARD)
if result:
    print(result, "wins")
elif empty == 0:
    print("draw")
else:
    print(f"still playing, {empty} free")
""",
        rows=values.lit(rows),
    )


def _records(rng: random.Random) -> str:
    people = [(rng.choice(values.NAMES), rng.choice(values.CITIES), rng.randint(18, 70))
              for _ in range(rng.randint(2, 5))]  # fmt: skip
    named = rng.random() < 0.5
    head = (
        "from collections import namedtuple\n\nPerson = namedtuple('Person', 'name city age')"
        if named
        else "from typing import NamedTuple\n\n\nclass Person(NamedTuple):\n    name: str\n"
        "    city: str\n    age: int"
    )
    key = rng.choice(("attrgetter('age')", "attrgetter('city', 'name')"))
    return _render(
        f"""from operator import attrgetter
{head}


people = [Person(*row) for row in $people]
by_city = {{}}
for person in people:
    by_city.setdefault(person.city, []).append(person.name)
oldest = max(people, key=attrgetter("age"))
print(sorted(people, key={key})[0])
print(oldest.name, oldest._asdict()["age"], len(by_city))
""",
        people=values.lit(people),
    )


def _config_merge(rng: random.Random) -> str:
    defaults = {
        "host": rng.choice(("localhost", "127.0.0.1", "db.local")),
        "port": rng.choice((8080, 5000, 3000, 5432)),
        "debug": rng.random() < 0.3,
        "paths": {k: f"{k}/" for k in rng.sample(("data", "logs", "cache", "tmp"), 2)},
    }
    if rng.random() < 0.5:
        defaults["name"] = values.word(rng).lower()
    choices = {"port": rng.choice((80, 443, 8000)), "debug": True, "retries": rng.randint(1, 5),
               "host": rng.choice(("example.org", "0.0.0.0")),
               "paths": {rng.choice(("logs", "data")): "/var/app/"}}  # fmt: skip
    overrides = {k: choices[k] for k in rng.sample(sorted(choices), rng.randint(0, 3))}
    lines = ["PORT=9000", "DEBUG=true", "HOST=0.0.0.0", "PORT=abc", "# comment", "RETRIES=2",
             "debug = False", "NAME=demo"]  # fmt: skip
    env = "\n".join(rng.sample(lines, rng.randint(0, 3)))
    return _render(
        """DEFAULTS = $defaults


def merge(base, extra):
    result = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merge(result[key], value)
        else:
            result[key] = value
    return result


def from_env(text):
    found = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if not sep:
            continue
        key = key.strip().lower()
        if value.isdigit():
            found[key] = int(value)
        elif value.lower() in ("true", "false"):
            found[key] = value.lower() == "true"
        else:
            found[key] = value
    return found


config = merge(merge(DEFAULTS, $overrides), from_env($env))
print(config["host"], config["port"], config["debug"])
print(sorted(config["paths"].items()))
""",
        defaults=values.lit(defaults),
        overrides=values.lit(overrides),
        env=values.lit(env),
    )


THEMES: dict[str, Callable[[random.Random], str]] = {
    "inventory": _inventory,
    "word_count": _word_count,
    "grade_book": _grade_book,
    "bank_account": _bank_account,
    "log_parsing": _log_parsing,
    "state_machine": _state_machine,
    "recursion": _recursion,
    "generators": _generators,
    "with_blocks": _with_blocks,
    "shopping_cart": _shopping_cart,
    "conversions": _conversions,
    "todo_list": _todo_list,
    "queue_simulation": _queue_simulation,
    "tic_tac_toe": _tic_tac_toe,
    "records": _records,
    "config_merge": _config_merge,
}


def everyday_programs(seed: int, count: int) -> tuple[list[TrainingProgram], Counter[str]]:
    """``count`` validated everyday scripts, deterministic in ``(seed, count)``, with a tally
    of kept and rejected candidates."""
    rng = random.Random(seed)
    stats: Counter[str] = Counter()
    return [_one(rng, stats) for _ in range(count)], stats


def _one(rng: random.Random, stats: Counter[str]) -> TrainingProgram:
    for _ in range(ATTEMPTS):
        theme = rng.choice(sorted(THEMES))
        try:
            source = THEMES[theme](rng)
        except Exception as exc:  # a template bug: count it, draw again
            stats[f"template failed: {theme}: {type(exc).__name__}"] += 1
            continue
        verdict = check_program(source, None)
        if verdict.ok:
            stats["kept everyday"] += 1
            return TrainingProgram(source, None, f"everyday:{theme}")
        stats[f"rejected everyday: {theme}: {verdict.reason.split(':')[0]}"] += 1
    raise RuntimeError(f"no valid everyday script after {ATTEMPTS} candidates")
