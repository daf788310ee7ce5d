"""collector: the cyclic collector is off during a call and restored after, even on error."""

import gc

import pytest

from repoctx.collector import collector_paused


@collector_paused
def enabled_inside(fail: bool = False) -> bool:
    if fail:
        raise RuntimeError("boom")
    return gc.isenabled()


@pytest.mark.parametrize("before", [True, False])
def test_paused_for_the_call_and_restored_after(before):
    (gc.enable if before else gc.disable)()
    try:
        assert enabled_inside() is False
        assert gc.isenabled() is before
        with pytest.raises(RuntimeError):
            enabled_inside(fail=True)
        assert gc.isenabled() is before
    finally:
        gc.enable()


def test_the_wrapped_function_keeps_its_name():
    assert enabled_inside.__name__ == "enabled_inside"
