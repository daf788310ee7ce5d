"""This file does not parse: the extractor must still recover what it can."""


class Survivor:
    def fine(self):
        return 1


def broken(:
    return


def after_the_break():
    return 2


class Unclosed(Base:
    pass


def last_one():
    return [1, 2
