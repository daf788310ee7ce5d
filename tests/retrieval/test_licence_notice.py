"""A licence header naming another project's holder, told from the repository's own."""

from repoctx.retrieval.licence_notice import foreign_notice, holder_words

OWN = holder_words("License\n=======\n\nCopyright (c) 2007-2020 by the Quill team (see AUTHORS).")


def lines(text: str) -> list[str]:
    return text.splitlines()


def test_the_holder_is_read_from_the_licence_text():
    assert {"quill", "team"} <= OWN
    assert holder_words(None) == frozenset() == holder_words("MIT License, no holder")


def test_a_header_of_another_holder_is_foreign():
    pasted = "//     Lodash 1.3.1\n//     (c) 2009-2012 Jane Doe, Example Inc.\n" \
             "//     Lodash is freely distributable under the MIT license.\n"
    assert foreign_notice(lines(pasted), OWN)
    assert holder_words(pasted) == {"jane", "doe", "example", "inc"}


def test_the_own_header_and_code_without_a_notice_are_not():
    mine = ":copyright: Copyright 2007-2020 by the Quill team, see AUTHORS.\n" \
           ":license: BSD, see LICENSE for details.\n"
    assert not foreign_notice(lines(mine), OWN)
    assert not foreign_notice(lines("x = size(c)  # (c) is the count\n"), OWN)


def test_only_the_header_lines_count():
    late = "\n" * 60 + "# Released under the MIT license\n"
    assert not foreign_notice(lines(late), OWN)
