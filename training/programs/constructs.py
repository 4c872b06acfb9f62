"""Which Python constructs a program uses, read from its syntax tree.

Why: the training corpus must cover everyday Python broadly; this is how the tests and the
corpus report check it (how many programs have a while loop, a class, recursion, a lambda,
a try/except, ``dict.get`` ...).
"""

from __future__ import annotations

import ast
import builtins


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


STR_METHODS = _names(
    "upper lower strip lstrip rstrip split join replace find startswith endswith isdigit "
    "isalpha isupper islower isalnum isspace istitle title capitalize swapcase partition "
    "zfill ljust rjust center"
)
LIST_METHODS = _names("append pop insert extend remove sort reverse index")
DICT_METHODS = _names("get setdefault items keys values update fromkeys")
SET_METHODS = _names("add discard union intersection difference symmetric_difference")


def _calls_itself(func: ast.FunctionDef) -> bool:
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == func.name
        ):
            return True
    return False


def constructs(source: str) -> set[str]:
    """Names of the constructs ``source`` uses (see the checks below for the vocabulary)."""
    tree = ast.parse(source)
    found: set[str] = set()
    top_functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    for node in ast.walk(tree):
        if isinstance(node, ast.For):
            found.add("for")
            it = node.iter
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name):
                name = it.func.id
                if name in ("range", "enumerate", "zip", "sorted", "reversed"):
                    found.add(f"for_{name}")
            if (
                isinstance(it, ast.Call)
                and isinstance(it.func, ast.Attribute)
                and it.func.attr == "items"
            ):
                found.add("for_items")
            if any(isinstance(n, ast.For | ast.While) for n in ast.walk(node) if n is not node):
                found.add("nested_loop")
        elif isinstance(node, ast.While):
            found.add("while")
        elif isinstance(node, ast.Break):
            found.add("break")
        elif isinstance(node, ast.Continue):
            found.add("continue")
        elif isinstance(node, ast.If):
            found.add("if")
            if node.orelse:
                if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
                    found.add("elif")
                else:
                    found.add("else")
            test = node.test
            if (
                isinstance(test, ast.Compare)
                and isinstance(test.left, ast.Name)
                and test.left.id == "__name__"
            ):
                found.add("main_guard")
        elif isinstance(node, ast.ClassDef):
            bases = {b.id for b in node.bases if isinstance(b, ast.Name)}
            if bases & {"Exception", "ValueError"}:
                found.add("custom_exception")
            else:
                found.add("class")
        elif isinstance(node, ast.FunctionDef):
            if _calls_itself(node):
                found.add("recursion")
            if node.args.defaults:
                found.add("default_args")
        elif isinstance(node, ast.ListComp):
            found.update(("comprehension", "list_comp"))
        elif isinstance(node, ast.DictComp):
            found.update(("comprehension", "dict_comp"))
        elif isinstance(node, ast.SetComp):
            found.update(("comprehension", "set_comp"))
        elif isinstance(node, ast.GeneratorExp):
            found.update(("comprehension", "genexp"))
        elif isinstance(node, ast.Try):
            found.add("try")
            if node.finalbody:
                found.add("finally")
            if node.orelse:
                found.add("try_else")
            for handler in node.handlers:
                if isinstance(handler.type, ast.Name):
                    found.add(f"except_{handler.type.id}")
        elif isinstance(node, ast.Raise):
            found.add("raise")
        elif isinstance(node, ast.Yield | ast.YieldFrom):
            found.add("yield")
        elif isinstance(node, ast.Lambda):
            found.add("lambda")
        elif isinstance(node, ast.JoinedStr):
            found.add("fstring")
        elif isinstance(node, ast.IfExp):
            found.add("ifexp")
        elif isinstance(node, ast.AugAssign):
            found.add("augassign")
        elif isinstance(node, ast.Delete):
            found.add("del")
        elif isinstance(node, ast.Starred):
            found.add("star")
        elif isinstance(node, ast.Slice):
            found.add("slice")
        elif isinstance(node, ast.Assign):
            if any(isinstance(t, ast.Tuple) for t in node.targets):
                found.add("tuple_unpack")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                attr = func.attr
                if attr in STR_METHODS:
                    found.add("str_methods")
                if attr in LIST_METHODS:
                    found.add("list_methods")
                if attr in DICT_METHODS:
                    found.add("dict_methods")
                if attr in SET_METHODS:
                    found.add("set_methods")
                if isinstance(func.value, ast.Name) and func.value.id == "self":
                    found.add("self_method_call")
            elif isinstance(func, ast.Name):
                if func.id == "print":
                    found.add("print")
                if func.id in top_functions:
                    found.add("helper_call")
                if func.id in ("divmod", "abs", "min", "max", "sum", "len", "sorted"):
                    found.add(f"builtin_{func.id}")
    for line in source.splitlines():
        if sum(line.count(f"{name}(") for name in top_functions) >= 2 and not line.startswith(
            "def "
        ):
            found.add("multi_call_line")
            break
    return found


class _Canonical(ast.NodeTransformer):
    def __init__(self) -> None:
        self.mapping: dict[str, str] = {}

    def name(self, name: str) -> str:
        if name not in self.mapping:
            self.mapping[name] = f"n{len(self.mapping)}"
        return self.mapping[name]

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if not hasattr(builtins, node.id):
            node.id = self.name(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self.name(node.arg)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self.name(node.name)
        self.generic_visit(node)
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.name = self.name(node.name)
        self.generic_visit(node)
        return node


def normalized_module(source: str) -> str:
    """The module with every identifier renamed by first appearance (for counting duplicates)."""
    tree = _Canonical().visit(ast.parse(source))
    return ast.unparse(tree)
