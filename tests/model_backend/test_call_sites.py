"""Call sites read from the code: which lines can call a plain function, and after a return
whose call a breakpoint jump skipped, where the caller can go on (checked against a real run)."""

from __future__ import annotations

import itertools

from neural_debugger.model_backend.call_sites import CallSites
from neural_debugger.model_backend.flow import Expected, LineFlow, expect
from neural_debugger.protocol import Action, ActionKind, State, StateKind
from neural_debugger.protocol.source_map import SourceMap
from neural_debugger.tracer.program import Program
from neural_debugger.tracer.record import record
from neural_debugger.training.data import TRACE_LIMITS

CODE = "\n".join(
    [
        "def half(n):",  # 1
        "    return n // 2",  # 2
        "def twice(f, x):",  # 3
        "    return f(f(x))",  # 4
        "def clamp(v):",  # 5
        "    if v > 9:",  # 6
        "        return 9",  # 7
        "    return v",  # 8
        "def main():",  # 9
        "    a = clamp(4)",  # 10
        "    b = twice(half, 8)",  # 11
        "    ys = [clamp(v) for v in (1, 20)]",  # 12
        "    c = clamp(",  # 13
        "        a + b)",  # 14
        "    return a + b + c + sum(ys)",  # 15
        "class Box:",  # 16
        "    def get(self):",  # 17
        "        return 1",  # 18
        "def gen():",  # 19
        "    yield 1",  # 20
    ]
)


def test_only_a_function_named_just_as_a_callee_has_known_call_sites() -> None:
    sites = CallSites(CODE)
    assert sites.returning_to([8]) == {10, 12, 13, 14}  # clamp: its calls' lines
    assert sites.returning_to([7, 8]) == {10, 12, 13, 14}
    assert sites.returning_to([4]) == {11}  # twice
    assert sites.returning_to([2]) is None  # half is passed as a value: called from anywhere
    assert sites.returning_to([18]) == frozenset()  # Box.get: a method the code never calls
    assert sites.returning_to([20]) is None  # a generator
    assert sites.returning_to([12]) is None  # the comprehension's frame shares the line
    assert sites.returning_to([15]) == frozenset()  # main: called from outside the code
    assert sites.returning_to([]) is None


def test_code_that_can_reach_names_dynamically_or_does_not_parse_lists_nothing() -> None:
    assert CallSites(CODE + "\nprint(globals()['clamp'](3))").returning_to([8]) is None
    assert CallSites(CODE + "\nclamp = abs").returning_to([8]) is None  # rebound
    assert CallSites(CODE + "\nx = box.clamp").returning_to([8]) is None  # an attribute
    assert CallSites("def f(:\n    return 1\n").returning_to([2]) is None
    shadowed = "def f(x):\n    return x\ndef g(f):\n    return f(1)\nprint(g(f))\n"
    assert CallSites(shadowed).returning_to([2]) is None


def test_after_a_jump_a_return_goes_on_where_the_code_calls_the_function() -> None:
    """A breakpoint jump into clamp skipped its call; its return leads only to the lines
    after clamp's call sites, and the real run's next line is one of them."""
    flow, source = LineFlow(CODE), SourceMap(CODE)
    states = (
        State(kind=StateKind.CALL, src="def main():", locals={}),
        State(kind=StateKind.LINE, src="    return v", locals={"v": "4"}),
        State(kind=StateKind.RETURN, src="    return v", value="4"),
    )
    jump = Action(kind=ActionKind.BREAKPOINT, target="    return v")
    into = Action(kind=ActionKind.STEP_INTO)
    after = expect(flow, source, states, (jump, into), into)
    allowed = after.lines[StateKind.LINE]
    assert "    b = twice(half, 8)" in allowed  # after `a = clamp(4)`
    assert "    return a + b + c + sum(ys)" in allowed  # after `c = clamp(a + b)`
    assert "    if v > 9:" not in allowed and "        return 1" not in allowed
    program = Program(path="sites.py", source=CODE, entry="main()")
    events = [e for e in record(program, TRACE_LIMITS).events if e.function in ("main", "clamp")]
    seen = [(e.function, e.kind, e.line) for e in events]
    first_return = seen.index(("clamp", "return", 8))
    function, kind, line = seen[first_return + 1]
    assert (function, kind) == ("main", "line") and source.lines[line - 1] in allowed


STACK = "\n".join(
    [
        "class Stack:",  # 1
        "    def __init__(self):",  # 2
        "        self.items = []",  # 3
        "    def push(self, v):",  # 4
        "        self.items.append(v)",  # 5
        "        return len(self.items)",  # 6
        "s = Stack()",  # 7
        "s.push(1)",  # 8
        "n = s.push(",  # 9
        "    2)",  # 10
        "print(s.items, n)",  # 11
    ]
)


def test_a_method_named_just_as_the_attribute_a_call_calls_has_known_call_sites() -> None:
    assert CallSites(STACK).returning_to([5, 6]) == {8, 9, 10}  # its calls' lines
    assert CallSites(STACK).returning_to([3]) == {7}  # __init__: from `Stack()` (below)
    # anything else can call it from a line that does not name it, or reach it by a string
    for extra in (
        "f = s.push",
        "print(list(map(s.push, [3])))",
        "def push(x):\n    return x",
        "import operator\noperator.methodcaller('push', 3)(s)",
        "class Other(dict):\n    def push(self):\n        return 0",
    ):
        assert CallSites(STACK + "\n" + extra).returning_to([6]) is None, extra
    for changed in (
        STACK.replace("class Stack:", "class Stack(list):"),  # list's code may call it
        STACK.replace("    def push", "    @staticmethod\n    def push"),
        STACK.replace("push", "write"),  # print(file=...) and json.dump call write
    ):
        sites, lines = CallSites(changed), changed.split("\n")
        heads = {n for n in range(4, 9) if lines[n - 1].lstrip().startswith(("def", "@"))}
        assert all(sites.returning_to([n]) is None for n in set(range(4, 9)) - heads), changed
    dataclass = "from dataclasses import dataclass\n@dataclass\n" + STACK
    assert CallSites(dataclass).returning_to([8]) == {10, 11, 12}


INITS = "\n".join(
    [
        "class Error(Exception):",  # 1
        "    def __init__(self, needed):",  # 2
        "        super().__init__('need ' + str(needed))",  # 3
        "        self.needed = needed",  # 4
        "class Shape:",  # 5
        "    def __init__(self, name):",  # 6
        "        self.name = name",  # 7
        "class Rect(Shape):",  # 8
        "    pass",  # 9
        "class Square(Rect):",  # 10
        "    def __init__(self, side: int) -> None:",  # 11
        "        Rect.__init__(self, 'square')",  # 12
        "        self.side = side",  # 13
        "def make(n):",  # 14
        "    if isinstance(n, Shape):",  # 15
        "        raise Error",  # 16
        "    shapes = [Rect(n), Square(n)]",  # 17
        "    try:",  # 18
        "        raise Error(n)",  # 19
        "    except Error:",  # 20
        "        return shapes",  # 21
        "make(2)",  # 22
    ]
)


def test_an_init_returns_to_a_call_of_its_class_or_of_an_attribute_init() -> None:
    """``__init__`` runs where its class, or a subclass that inherits it, is called (``raise
    Error`` calls it too) and from ``super().__init__``/``Base.__init__`` calls; where the code
    can make an instance without naming the class, nothing is known."""
    sites = CallSites(INITS)
    init_calls = {3, 12}
    assert sites.returning_to([4]) == {16, 19} | init_calls
    assert sites.returning_to([7]) == {17} | init_calls  # Rect inherits Shape's __init__
    assert sites.returning_to([13]) == {17} | init_calls
    for extra in (
        "copy = type(make(1)[0])(3)",  # a class reached through an instance
        "print(list(map(Rect, [1])))",  # passed as a value: anything may call it
        "from dataclasses import replace",
        "class Maker:\n    @classmethod\n    def new(cls):\n        return cls()",
        "Shape = dict",  # rebound
        "class Circle(Shape, metaclass=type):\n    pass",  # a class type does not make
    ):
        assert CallSites(INITS + "\n" + extra).returning_to([7]) is None, extra
    assert CallSites(INITS + "\nclass Other(dict):\n    pass").returning_to([7]) is not None
    decorated = INITS.replace(
        "    def __init__(self, name):", "    @staticmethod\n    def __init__(self, name):"
    )
    assert CallSites(decorated).returning_to([8]) is None


def test_a_class_body_returns_to_its_class_statement() -> None:
    """Python runs a class body only from its ``class`` statement: a return on a line of the
    body's own frame (a method's ``def`` line, a class attribute) goes back to the header's
    lines, decorators and bases included; a line where a method's body or a lambda lies
    is not the class body's alone."""
    assert CallSites(STACK).returning_to([4]) == {1}
    assert CallSites(STACK).returning_to([2, 4]) == {1}
    dataclass = "from dataclasses import dataclass\n@dataclass\n" + STACK
    assert CallSites(dataclass).returning_to([6]) == {2, 3}
    code = "\n".join(
        [
            "class Shape(",  # 1
            "    object):",  # 2
            "    sides = 4",  # 3
            "    key = lambda self: self.sides",  # 4
            "    def area(self): return 1",  # 5
            "    class Meta:",  # 6
            "        kind = 'shape'",  # 7
        ]
    )
    sites = CallSites(code)
    assert sites.returning_to([3]) == {1, 2} and sites.returning_to([6]) == {1, 2}
    assert sites.returning_to([7]) == {6}  # the inner class's body, from its own statement
    assert sites.returning_to([4]) is None and sites.returning_to([5]) is None


def test_after_a_jump_into_a_method_its_return_goes_on_after_a_call_of_it() -> None:
    """A breakpoint jump into Stack.push skipped its call; after the return the caller goes
    on after a line that calls it, never on the method's own lines, as the real run does."""
    flow, source = LineFlow(STACK), SourceMap(STACK)
    states = (
        State(kind=StateKind.CALL, src="class Stack:", locals={}),
        State(kind=StateKind.LINE, src="        return len(self.items)", locals={"v": "1"}),
        State(kind=StateKind.RETURN, src="        return len(self.items)", value="1"),
    )
    jump = Action(kind=ActionKind.BREAKPOINT, target="        return len(self.items)")
    into = Action(kind=ActionKind.STEP_INTO)
    allowed = expect(flow, source, states, (jump, into), into).lines[StateKind.LINE]
    assert "n = s.push(" in allowed and "print(s.items, n)" in allowed
    assert not allowed & {"        return len(self.items)", "        self.items.append(v)"}
    program = Program(path="stack.py", source=STACK)
    seen = [(e.kind, e.line) for e in record(program, TRACE_LIMITS).events]
    after = seen[seen.index(("return", 6)) + 1]
    assert after[0] == "line" and source.lines[after[1] - 1] in allowed


PLAIN = "\n".join(
    [
        "def clamp(v):",  # 1
        "    return min(v, 9)",  # 2
        "def total(xs):",  # 3
        "    s = sum([clamp(x) for x in xs])",  # 4
        "    t = clamp(",  # 5
        "        s)",  # 6
        "    return t + len(xs)",  # 7
        "def main():",  # 8
        "    return total([4, 20])",  # 9
    ]
)


def test_a_step_into_enters_only_what_the_line_calls_when_the_code_says() -> None:
    sites = CallSites(PLAIN)
    assert sites.entered_from([9]) == {3}  # total
    assert sites.entered_from([4]) == {1, 4}  # the comprehension, and clamp from it
    assert sites.entered_from([5]) == {1} and sites.entered_from([6]) == {1}
    assert sites.entered_from([7]) == frozenset()  # builtins only: no frame of the code
    assert sites.entered_from([2, 9]) == {3}
    assert sites.entered_from([]) is None
    # frames Python can enter from lines that do not name them: nothing is known
    for extra in ("class Box:\n    pass", "f = lambda x: x", "g = (x for x in [1])"):
        assert CallSites(PLAIN + "\n" + extra).entered_from([9]) is None
    assert CallSites(PLAIN + "\nprint(sorted([3], key=clamp))").entered_from([9]) is None
    assert CallSites(CODE).entered_from([10]) is None  # a method and a generator


def test_the_grammar_allows_only_the_called_frames_and_a_real_run_keeps_to_it() -> None:
    """Every step into from a line of a real run of PLAIN lands where ``expect`` allows; a
    call state's line is one of the functions the line calls."""
    flow, source = LineFlow(PLAIN), SourceMap(PLAIN)
    into = Action(kind=ActionKind.STEP_INTO)
    line = State(kind=StateKind.LINE, src="    return total([4, 20])", locals={})
    states = (State(kind=StateKind.CALL, src="def main():", locals={}), line)
    expected = expect(flow, source, states, (into,), into)
    assert expected.lines[StateKind.CALL] == {"def total(xs):"}
    last = State(kind=StateKind.LINE, src="    return t + len(xs)", locals={"xs": "[4, 20]"})
    expected = expect(flow, source, (*states[:1], last), (into,), into)
    assert expected.lines[StateKind.CALL] == frozenset()
    program = Program(path="plain.py", source=PLAIN, entry="main()")
    sites = CallSites(program.context)  # the code the model sees: the entry's wrapper too
    events = record(program, TRACE_LIMITS).events
    steps = 0
    for before, after in itertools.pairwise(events):
        if before.kind == "line" and after.kind == "call":
            entered = sites.entered_from([program.context_line(before.file, before.line)])
            assert entered is not None, before
            assert program.context_line(after.file, after.line) in entered, (before, after)
            steps += 1
    assert steps >= 4  # main, total, the comprehension, clamp


CALLING = "\n".join(
    [
        "class Counter:",  # 1
        "    def __init__(self, start):",  # 2
        "        self.n = start",  # 3
        "class Bare:",  # 4
        "    pass",  # 5
        "def add(a, b):",  # 6
        "    return a + b",  # 7
        "def gen():",  # 8
        "    yield 1",  # 9
        "def main(flag):",  # 10
        "    c = Counter(3)",  # 11
        "    y = add(1, 2)",  # 12
        "    z = flag and add(1, 2)",  # 13
        "    g = gen()",  # 14
        "    w = [add(v, 1) for v in range(3)]",  # 15
        "    print(1 if add(1, 1) else 0)",  # 16
        "    if y: add(1, 2)",  # 17
        "    f = lambda: add(1, 2)",  # 18
        "    b = Bare()",  # 19
        "    t = (",  # 20
        "        add(1, 2))",  # 21
        "    return str(add(y, 1))",  # 22
    ]
)


def test_a_line_that_surely_calls_the_code_steps_into_a_call() -> None:
    sites = CallSites(CALLING)
    sure = [n for n in range(1, 23) if sites.surely_calling([n])]
    # a class with an __init__ of its own, a function, a test evaluated whatever it says, a
    # call nested in a builtin's; not a short-circuit, a generator, a comprehension, a branch,
    # a lambda, a class whose instances run no code of the program, a statement over lines
    assert sure == [11, 12, 16, 22]
    assert sites.surely_calling([11, 12]) and not sites.surely_calling([11, 13])
    assert not sites.surely_calling([])
    # a name bound twice, or a builtin's, may call something else
    assert not CallSites(CALLING + "\nadd = max").surely_calling([12])
    shadowed = CALLING.replace("add", "max")
    assert not CallSites(shadowed).surely_calling([12])
    assert not CallSites(CALLING + "\nimport add.sub").surely_calling([12])


def test_after_such_a_line_only_a_call_or_an_exception_comes_and_real_runs_agree() -> None:
    flow, source = LineFlow(CALLING), SourceMap(CALLING)
    into = Action(kind=ActionKind.STEP_INTO)
    states = (
        State(kind=StateKind.CALL, src="def main(flag):", locals={"flag": "True"}),
        State(kind=StateKind.LINE, src="    y = add(1, 2)", locals={"flag": "True"}),
    )
    expected = expect(flow, source, states, (into,), into)
    assert expected.lines[StateKind.LINE] == expected.lines[StateKind.RETURN] == frozenset()
    called = State(kind=StateKind.CALL, src="def add(a, b):", locals={"a": "1", "b": "2"})
    assert expected.allows(called)
    skipped = State(kind=StateKind.LINE, src="    z = flag and add(1, 2)", locals={})
    assert not expected.allows(skipped)
    # `add` is bound and takes two arguments: nothing can raise before its call
    assert not expected.allows(State(kind=StateKind.EXCEPTION, src=states[1].src, value="E()"))
    states = (*states[:1], State(kind=StateKind.LINE, src="    c = Counter(3)", locals={}))
    counting = expect(flow, source, states, (into,), into)  # a class: __init__ may not run
    assert counting.allows(State(kind=StateKind.EXCEPTION, src=states[1].src, value="E()"))
    over = expect(flow, source, states, (into,), Action(kind=ActionKind.STEP_OVER))
    assert over.lines[StateKind.LINE]  # a step over goes past the call
    for flag in ("True", "False"):
        program = Program(path="calling.py", source=CALLING, entry=f"main({flag})")
        sites = CallSites(program.context)
        events = record(program, TRACE_LIMITS).events
        checked = 0
        for before, after in itertools.pairwise(events):
            if before.kind == "line" and sites.surely_calling(
                [program.context_line(before.file, before.line)]
            ):
                assert after.kind in ("call", "exception"), (before, after)
                checked += 1
        assert checked >= 4


ENTERING = "\n".join(
    [
        "def add(a, b=0):",  # 1
        "    return a + b",  # 2
        "def main(x):",  # 3
        "    add(x)",  # 4
        "    y = add(x, [1, {'k': x}])",  # 5
        "    add()",  # 6
        "    add(x, 1, 2)",  # 7
        "    add(x, b=1)",  # 8
        "    z = add(x, q)",  # 9
        "    late(x)",  # 10
        "    return add(x, 1) + 1",  # 11
        "    add({[x]: 1})",  # 12
        "def late(v):",  # 13
        "    return v",  # 14
        "X = 2",  # 15
        "add(X, 1)",  # 16
    ]
)


def test_a_call_nothing_can_raise_before_is_entered() -> None:
    """A call of a function the code defines earlier, with the arguments it takes, made of
    constants and bound variables, is entered: its call event comes next, no exception."""
    sites = CallSites(ENTERING)
    bound = frozenset({"x"})
    entering = [n for n in range(1, 17) if sites.surely_entering([n], bound)]
    # not: too few or too many arguments, keywords, an unbound variable, a function defined
    # after the caller's definition, an operator after the call, an unhashable key
    assert entering == [4, 5]
    assert sites.surely_entering([16], frozenset({"X"}))
    assert not sites.surely_entering([16], frozenset())
    assert not sites.surely_entering([9], bound) and sites.surely_entering([9], bound | {"q"})
    program = Program(path="entering.py", source=ENTERING + "\nmain(3)", entry=None)
    flow = LineFlow(program.context)
    events = record(program, TRACE_LIMITS).events
    checked = 0
    for before, after in itertools.pairwise(events):
        line = program.context_line(before.file, before.line)
        names = flow.names_surely_at([line]) if line < 15 else frozenset({"X"})
        if before.kind == "line" and sites.surely_entering([line], names):
            assert after.kind == "call", (before, after)
            checked += 1
    assert checked == 3  # lines 4, 5 and 16; main(3) ends raising on line 6


TAG = "\n".join(
    [
        "class Tag:",  # 1
        "    def __init__(self, name):",  # 2
        "        self.name = name",  # 3
        "    def __enter__(self):",  # 4
        "        return self.name",  # 5
        "    def __exit__(self, *exc):",  # 6
        "        return False",  # 7
        "with Tag('t') as name:",  # 8
        "    if name == 't':",  # 9
        "        raise ValueError(name)",  # 10
        "print(name)",  # 11
    ]
)


def _after_tag_method(header: str, line: str, value: str) -> Expected:
    """What a step into may show after a breakpoint stopped on TAG's ``with`` line and steps
    then ran one of ``Tag``'s methods (its ``def`` line ``header``, body ``line``) to its
    return of ``value``."""
    into = Action(kind=ActionKind.STEP_INTO)
    jump = Action(kind=ActionKind.BREAKPOINT, target="with Tag('t') as name:")
    states = (
        State(kind=StateKind.CALL, src="class Tag:", locals={}),
        State(kind=StateKind.LINE, src="with Tag('t') as name:", locals={"Tag": "<class>"}),
        State(kind=StateKind.CALL, src=header, locals={"self": "<Tag>"}),
        State(kind=StateKind.LINE, src=line, locals={}, diff=True),
        State(kind=StateKind.RETURN, src=line, value=value),
    )
    return expect(LineFlow(TAG), SourceMap(TAG), states, (jump, into, into, into), into)


def test_after_a_jump_frames_its_steps_opened_return_to_lines_the_history_saw() -> None:
    """A breakpoint stopped on the ``with`` line, then steps went into ``Tag``'s methods:
    their caller is the frame the jump landed in, on that line, so after ``__init__``
    returns, the caller returns or raises only there (or, once ``__exit__`` passed an
    exception on, on the body's line that raised it, as Python places it)."""
    after = _after_tag_method("    def __init__(self, name):", "        self.name = name", "None")
    body = {"    if name == 't':", "        raise ValueError(name)"}
    assert after.lines[StateKind.RETURN] == {"with Tag('t') as name:", *body}
    assert not after.lines[StateKind.LINE] & {"        self.name = name", "        return False"}
    program = Program(path="tag.py", source=TAG)
    seen = [(e.kind, e.line) for e in record(program, TRACE_LIMITS).events]
    assert seen[seen.index(("return", 3)) + 1] == ("call", 4)  # then __enter__
    assert seen[seen.index(("return", 5)) + 1] == ("line", 9)  # the body's first line
    # the body raised; __exit__ returned False; the module frame returns on the raise line
    assert seen[seen.index(("return", 7)) + 1] == ("return", 10)


def test_after_enter_returns_to_its_with_line_the_body_runs_first() -> None:
    """``__enter__`` returned to the ``with`` line the history saw: the next line is the
    body's first, never past the block, and the frame cannot return before it."""
    after = _after_tag_method("    def __enter__(self):", "        return self.name", "'t'")
    assert after.lines[StateKind.LINE] == {"    if name == 't':"}
    assert after.lines[StateKind.RETURN] == frozenset()
    # __exit__'s return to the same line: past the block, or a return on the raising line
    after = _after_tag_method("    def __exit__(self, *exc):", "        return False", "False")
    assert "        raise ValueError(name)" in after.lines[StateKind.RETURN]
    assert "print(name)" in after.lines[StateKind.LINE]
