"""crdt/base: every registered module implements the ``CrdtModule`` protocol."""

import inspect

import pytest

from repoctx.crdt import MODULES
from repoctx.crdt.base import CrdtModule

PROTOCOL = sorted(n for n, v in vars(CrdtModule).items()
                  if inspect.isfunction(v) and not n.startswith("_"))


def test_the_protocol_is_the_five_uniform_functions():
    assert PROTOCOL == ["decode", "empty", "encode", "merge", "value"]


@pytest.mark.parametrize("module", MODULES.values(), ids=lambda m: m.__name__.rsplit(".")[-1])
def test_every_module_implements_the_protocol_with_the_same_arity(module):
    for name in PROTOCOL:
        fn = getattr(module, name)
        wanted = len(inspect.signature(getattr(CrdtModule, name)).parameters) - 1  # self
        assert len(inspect.signature(fn).parameters) == wanted, (module.__name__, name)
    bottom = module.empty()
    assert module.merge(bottom, bottom) == bottom
    assert module.decode(module.encode(bottom)) == bottom
    assert isinstance(module.encode(bottom), bytes)
