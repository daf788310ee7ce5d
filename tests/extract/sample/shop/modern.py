"""Syntax newer than the test interpreter (PEP 695): `ast` in Python 3.11 rejects it."""

type Pair[T] = tuple[T, T]


class Box[T: Hashable]:
    def unwrap[U](self, fallback: U) -> T | U:
        return fallback


def first[T](items: Sequence[T]) -> T:
    return items[0]
