import repoctx.contextpull as contextpull


def test_all_is_sorted_and_complete() -> None:
    public = {name for name in dir(contextpull) if not name.startswith("_")}
    modules = {name for name in public if type(getattr(contextpull, name)).__name__ == "module"}
    assert contextpull.__all__ == sorted(contextpull.__all__)
    assert set(contextpull.__all__) == public - modules
    for name in contextpull.__all__:
        obj = getattr(contextpull, name)
        if isinstance(obj, type) or callable(obj) and hasattr(obj, "__code__"):
            assert obj.__doc__, name


def test_every_module_has_a_test_file() -> None:
    from pathlib import Path

    package = Path(contextpull.__file__).parent
    tests = Path(__file__).parent
    missing = [
        p.stem for p in package.glob("*.py")
        if p.stem != "__init__" and not (tests / f"test_{p.stem}.py").exists()
    ]  # fmt: skip
    assert missing == []
