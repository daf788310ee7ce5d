from pathlib import Path

import repoctx.sync as sync


def test_all_is_sorted_and_every_module_has_a_test_file():
    assert sync.__all__ == sorted(sync.__all__)
    package, tests = Path(sync.__file__).parent, Path(__file__).parent
    missing = [p.stem for p in package.glob("*.py")
               if p.stem != "__init__" and not (tests / f"test_{p.stem}.py").exists()]
    assert missing == []
