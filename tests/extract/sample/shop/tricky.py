# -*- coding: utf-8 -*-
"""Definitions hiding in odd places, and text that only looks like definitions.

def not_a_function():
    pass

class NotAClass:
    pass
"""

FAKE = '''
def still_not_a_function(): pass
'''
# def commented_out(): pass
# class CommentedOut: pass


def type(value):  # shadows a builtin and a soft keyword
    return value


def match(pattern, text):
    return pattern == text


def print(*args):  # a Python 2 keyword in tree-sitter's eyes
    return args


def exec(code):
    return code


class case:
    def match(self, subject):
        match subject:
            case [first, *rest]:
                return first
            case {"k": value}:
                return value
            case _:
                return None

    def type(self):
        return "case"


def continued(first, \
              second):
    return first + second


class OneLiner: pass


def one_liner(): return 1


class Semi: x = 1; y = 2


@ (lambda f: f)
def decorated_by_lambda():
    pass


@[audit][0]
def decorated_by_subscript():
    pass


def outer():
    def a(): pass
    def b(): pass
    class C:
        def a(self): pass
    return a, b, C


def with_defaults(x=(1, 2), y={"k": "v"}, z=lambda: None, *, w: "list[int]" = []):
    pass


def generator():
    yield from (i for i in range(3))


def	tabbed(	a,	b	):
	return a	


class Empty:
    """"""


class Quoted:
    "single-quoted docstring"


class NotDoc:
    f"{__name__} is not a docstring"


def raw_doc():
    r"""Raw \d docstring."""


print >> None, "a valid Python 3 shift expression"
exec("pass")
