"""maintenance/check: one answer for the store and its export, damage named."""

from __future__ import annotations

import random
import shutil

from repoctx.maintenance import check_store, check_text
from repoctx.maintenance.check import check_open
from repoctx.retrieval import EXPORT_NAME
from repoctx.tools.status import health
from tests.damage import flip


def test_a_sound_store_and_export_check_ok(shop, tmp_path):
    copy = tmp_path / "store"
    shutil.copytree(shop.store.path, copy, ignore=shutil.ignore_patterns("*.lock"))
    answer = check_store(copy, copy / EXPORT_NAME)
    assert answer["ok"] is True and answer["store"]["records"] > 0
    assert answer["store"]["damaged"] == 0 and answer["export"]["problems"] == []
    assert check_text(answer).splitlines()[0].endswith("records checked)")


def test_no_store_is_not_ok_and_says_what_to_run(tmp_path):
    answer = check_store(tmp_path / "none", tmp_path / "none" / EXPORT_NAME)
    assert answer["ok"] is False and "repoctx index" in answer["store"]["error"]


def test_a_damaged_record_names_tree_key_and_repair(fresh_shop):
    store = fresh_shop.store
    key = store.key("file", "shop/cart.py")
    with store.trees.env.begin(write=True, db=store.trees.dbs["repo-context-structural"]) as t:
        t.put(key.encode(), b"\x81\xa4size\xc4\x03\x01\x01\xc1")
    answer = check_open(store.trees.env, store.path, fresh_shop.export)
    assert answer["ok"] is False and "repoctx repair" in answer["store"]["error"]
    [tree] = answer["store"]["trees"]
    assert tree["tree"] == "repo-context-structural" and tree["damage"][0]["key"] == key
    assert key in check_text(answer)
    assert health(fresh_shop)["ok"] is False  # health says what check says


def test_a_damaged_export_makes_health_not_ok(fresh_shop):
    flip(fresh_shop.export, 2000, random.Random(7), start=4096)
    got = health(fresh_shop)
    assert got["ok"] is False and got["store"]["ok"] is True
    assert got["export"]["problems"] and "repoctx repair" in got["export"]["error"]
