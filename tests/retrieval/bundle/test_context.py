"""repocontext_context: budgets, receipts, reuse, possession, staleness, sessions."""

from __future__ import annotations

import itertools
import os
import random
from pathlib import Path

import pytest

from repoctx.crdt import wall_ms
from repoctx.errors import ToolError
from repoctx.retrieval.bundle.context import MAX_BUDGET, context, plan_size
from repoctx.retrieval.bundle.rank import reader_rank
from repoctx.retrieval.bundle.receipts import receipt
from repoctx.retrieval.bundle.wire import dumps
from repoctx.session import SESSION_TTL_MS, record_delivery, session_key, session_view
from repoctx.tokenizer import count_tokens
from tests.retrieval.context_repo import WORDS, build

TASK = "Fix Cart.total so the Discount applies at checkout"


@pytest.fixture(scope="module")
def ws(cart_ws):
    return cart_ws


def call(ws, task=TASK, **kw):
    kw.setdefault("rank", reader_rank)
    return context(ws, task, **kw)


def sent_tokens(response) -> int:
    return count_tokens(dumps(response))


def delivered(response) -> set[str]:
    return {u["receipt"] for e in response["entries"] for u in e["units"]}


def reused(response) -> set[str]:
    return {r["receipt"] for r in response["reused"]}


def floor_tokens(ws) -> int:
    """The size of the irreducible empty answer (no entries, nothing reused)."""
    return sent_tokens(call(ws, "zebra quokka", responseBudgetTokens=1))


def test_budget_holds_for_the_bytes_sent_over_200_random_calls(ws):
    rnd = random.Random(5)
    floor = floor_tokens(ws) + 8  # + room for a retry field's digits
    for i in range(200):
        task = " ".join(rnd.choices(WORDS, k=rnd.randint(1, 6)))
        budget = int(10 ** rnd.uniform(0, 4.2)) if i % 10 else rnd.randint(1, MAX_BUDGET)
        detail = rnd.choice(["auto", "auto", "slices", "outline", "paths"])
        rank = None if i % 2 else reader_rank  # None: the default ranker (search)
        response = call(ws, task, responseBudgetTokens=budget, top=rnd.randint(1, 12),
                        detail=detail, rank=rank)
        sent = sent_tokens(response)
        assert response["responseTokens"] == sent
        assert response["responseBudgetTokens"] == budget
        if sent > budget:  # only the empty answer is allowed to exceed a tiny budget
            assert not response["entries"] and not response["reused"], (task, budget)
            assert budget < floor
        for entry in response["entries"]:
            assert entry["contentHash"] == ws.node(entry["path"]).digest
            assert entry["units"] and all(u["receipt"] for u in entry["units"])


def test_default_budget_delivers_bodies_with_receipts(ws):
    response = call(ws)
    assert response["entries"], response
    assert response["responseTokens"] <= 8192
    cart = next(e for e in response["entries"] if e["path"] == "shop/cart.py")
    assert cart["detail"] == "slices"
    digest = ws.node("shop/cart.py").digest
    for unit in cart["units"]:
        key = unit.get("symbol", "") if unit["kind"] == "slice" else ""
        assert unit["receipt"] == receipt("shop", "shop/cart.py", digest, unit["kind"], key)
        assert "text" in unit
    assert "xref" in response["retrievalPath"]


def test_tests_of_named_definitions_are_candidates(ws):
    paths = {e["path"] for e in call(ws, "Cart.total")["entries"]}
    assert {"shop/cart.py", "tests/test_cart.py"} <= paths


def test_a_large_file_is_sliced_to_the_named_symbols(ws):
    response = call(ws, "Discount apply", responseBudgetTokens=2000, detail="slices")
    pricing = next(e for e in response["entries"] if e["path"] == "shop/pricing.py")
    kinds = {u["kind"] for u in pricing["units"]}
    assert kinds == {"slice"}
    assert any(u.get("symbol") == "shop.pricing.Discount" for u in pricing["units"])
    assert sum(count_tokens(u["text"]) for u in pricing["units"]) < pricing[
        "fullReadTokenCount"]


def test_second_call_in_a_session_reuses_everything_and_charges_nothing(ws):
    first = call(ws, session="reuse-1")
    second = call(ws, session="reuse-1")
    assert delivered(first)
    assert delivered(first) <= reused(second)
    assert not delivered(first) & delivered(second)
    assert second["responseTokens"] < first["responseTokens"]


def test_reuse_under_a_tight_budget_never_charges_a_unit_twice(ws):
    first = call(ws, session="reuse-2", responseBudgetTokens=700)
    second = call(ws, session="reuse-2", responseBudgetTokens=700)
    assert delivered(first)
    assert not delivered(first) & delivered(second)
    assert reused(second)


def test_seen_receipts_are_reused_without_a_session(ws):
    first = call(ws)
    second = call(ws, seen=sorted(delivered(first)))
    assert delivered(first) <= reused(second)
    assert not delivered(first) & delivered(second)


def test_whole_file_delivery_records_possession_and_a_claim_is_then_honoured(ws):
    first = call(ws, "checkout", session="own-1")
    cart = next(e for e in first["entries"] if e["path"] == "shop/cart.py")
    assert cart["units"][0]["kind"] == "file"
    claim = f"shop/cart.py@{cart['contentHash']}"
    assert claim in session_view(ws.store, "own-1", wall_ms()).possession
    # another session holding only the possession (no receipts) may claim it
    record_delivery(ws.store, "own-2", [], [claim], wall_ms())
    honoured = call(ws, "checkout", session="own-2", known=[claim])
    assert "shop/cart.py" not in {e["path"] for e in honoured["entries"]}
    assert {"path": "shop/cart.py", "kind": "file",
            "receipt": cart["units"][0]["receipt"]} in honoured["reused"]


@pytest.mark.parametrize("session", [None, "forger"])
def test_a_forged_known_claim_is_ignored(ws, session):
    digest = ws.node("shop/cart.py").digest
    response = call(ws, "checkout", session=session, known=[f"shop/cart.py@{digest}"])
    cart = next(e for e in response["entries"] if e["path"] == "shop/cart.py")
    assert all("text" in u for u in cart["units"])
    assert not response["reused"]


@pytest.mark.parametrize("detail", ["outline", "paths"])
def test_outline_and_paths_never_create_possession(ws, detail):
    session = f"partial-{detail}"
    first = call(ws, "checkout", session=session, detail=detail)
    assert first["entries"]
    assert session_view(ws.store, session, wall_ms()).possession == frozenset()
    digest = ws.node("shop/cart.py").digest
    later = call(ws, "checkout", session=session, known=[f"shop/cart.py@{digest}"])
    cart = next(e for e in later["entries"] if e["path"] == "shop/cart.py")
    assert cart["detail"] == "slices" and "text" in cart["units"][0]


def test_budget_of_one_returns_a_retry_budget_that_works(ws):
    response = call(ws, responseBudgetTokens=1)
    assert response["entries"] == []
    retry = response["retryBudgetTokens"]
    assert isinstance(retry, int) and retry > 1
    again = call(ws, responseBudgetTokens=retry)
    assert again["entries"]
    assert sent_tokens(again) <= retry
    assert call(ws, responseBudgetTokens=retry - 1)["entries"] == []


def test_nothing_to_find_has_no_retry(ws):
    response = call(ws, "zebra quokka", responseBudgetTokens=1)
    assert response["entries"] == [] and "retryBudgetTokens" not in response


def test_session_ttl_expired_sessions_are_invisible(ws):
    start = wall_ms()
    first = call(ws, session="ttl", now_ms=start)
    assert delivered(first) <= reused(call(ws, session="ttl", now_ms=start + 1000))
    after = call(ws, session="ttl", now_ms=start + 1000 + SESSION_TTL_MS)
    assert not reused(after)
    assert delivered(first) <= delivered(after)


def test_bad_arguments_name_the_argument_and_valid_values(ws):
    with pytest.raises(ToolError, match="detail: must be one of auto, paths, outline, slices"):
        call(ws, detail="full")
    with pytest.raises(ToolError, match="responseBudgetTokens"):
        call(ws, responseBudgetTokens="many")
    with pytest.raises(ToolError, match="top"):
        call(ws, top=True)
    with pytest.raises(ToolError, match="task"):
        call(ws, "  ")
    with pytest.raises(ToolError, match="session"):
        call(ws, session="a/b")
    with pytest.raises(ToolError, match="known"):
        call(ws, known=["no-hash"])
    with pytest.raises(ToolError, match="seen"):
        call(ws, seen="abc")


def test_a_pasted_64k_task_is_taken_and_an_overlong_one_refused(ws):
    from repoctx.tools.registry import call as tool

    task = ("Checkout total is wrong\n<!-- template: describe the bug -->\n"
            + "lorem ipsum dolor sit amet " * 2500 + "\nthe cart total price")
    assert len(task) > 64_000
    bundle = tool(ws, "repocontext_context", {"task": task, "responseBudgetTokens": 4000})
    assert bundle["entries"] and bundle["responseTokens"] == sent_tokens(bundle) <= 4000
    with pytest.raises(ToolError, match="task: .*100000 characters"):  # the schema's words
        tool(ws, "repocontext_context", {"task": "x" * 100_001})
    with pytest.raises(ToolError, match="task: at most 100,000 characters"):  # the handler's
        context(ws, "x" * 100_001)


def test_numeric_arguments_are_clamped(ws):
    assert call(ws, responseBudgetTokens=10**9)["responseBudgetTokens"] == MAX_BUDGET
    assert call(ws, responseBudgetTokens=0, top=0)["responseBudgetTokens"] == 1
    assert len(call(ws, top=-5)["entries"]) <= 1


def test_the_default_ranker_answers(ws):
    response = context(ws, TASK)
    assert response["entries"]
    assert response["responseTokens"] == sent_tokens(response) <= 8192


def test_stale_file_degrades_to_outline_and_says_so(tmp_path: Path):
    workspace = build(tmp_path / "repo")
    try:
        path = workspace.root / "shop/cart.py"
        path.write_text(path.read_text() + "\n# edited\n")
        os.utime(path, ns=(1, 1))
        response = call(workspace, "checkout", detail="slices")
        cart = next(e for e in response["entries"] if e["path"] == "shop/cart.py")
        assert cart["detail"] == "outline" and cart["stale"] is True and cart["note"]
        assert all("text" not in u for u in cart["units"])
        auto = call(workspace, "checkout")
        cart = next(e for e in auto["entries"] if e["path"] == "shop/cart.py")
        assert cart["detail"] in ("outline", "paths") and cart["stale"] is True
    finally:
        workspace.close()


def test_replicas_sharing_a_session_converge(tmp_path: Path):
    root = tmp_path / "repo"
    a = build(root, store_dir=tmp_path / "store-a", replica="ra")
    b = build(root, store_dir=tmp_path / "store-b", replica="rb")
    try:
        from_a = call(a, "checkout", session="shared")
        from_b = call(b, "Discount apply", session="shared")
        key = session_key(a.store, "shared")
        rec_a, rec_b = a.store.get(key), b.store.get(key)
        a.store.merge(key, rec_b)
        b.store.merge(key, rec_a)
        now = wall_ms()
        view_a, view_b = session_view(a.store, "shared", now), session_view(b.store, "shared", now)
        assert view_a == view_b
        assert delivered(from_a) | delivered(from_b) <= view_a.receipts
        assert a.store.get(key).fields == b.store.get(key).fields
        again = call(a, "Discount apply", session="shared")
        assert delivered(from_b) <= reused(again)
    finally:
        a.close()
        b.close()


def test_the_plan_grows_with_the_budget_unless_top_is_given():
    sizes = [plan_size(b, None) for b in (1, 4_000, 13_000, 27_000, 50_000, 200_000)]
    assert sizes == sorted(sizes) and sizes[0] >= 10 and sizes[2] < sizes[4] <= 150
    assert plan_size(50_000, 7) == 7


def test_a_larger_budget_never_drops_a_file_a_smaller_one_carried(ws):
    task = "Cart checkout total with Discount apply and the pricing rules"
    carried = []
    for budget in (400, 800, 1600, 3200):
        response = call(ws, task, responseBudgetTokens=budget)
        carried.append({e["path"] for e in response["entries"] if e["detail"] != "paths"})
        assert sent_tokens(response) <= budget
    assert all(a <= b for a, b in itertools.pairwise(carried))
