"""retrieval/tuning — every ranking knob of search, bundle building and the document
classes, in one frozen value.

A ``Tuning`` is passed in (``Workspace.tuning``, or a ``tuning=`` keyword whose default
is ``TUNING``) rather than read from module globals, so a benchmark can sweep one field
with ``dataclasses.replace`` and a reader finds every knob here. Limits of the protocol
or the schema (argument lengths, table names, response caps) are not tuning and stay
with the code they bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class TextTuning:
    """How a task's text is read: which words discriminate and how many are kept."""

    common_share: float = 0.05
    """A word in more sections than this share of the index does not discriminate."""
    common_weight: float = 0.05
    """The idf multiplier of such a common word: kept, but it barely counts."""
    prose_rarity: int = 20
    """A prose word's rarity counts only up to that of a word in this many sections."""
    reduced_terms: int = 16
    """Most terms a reduced query keeps: on the SWE-bench Django split 12 to 24 terms find
    a gold file in the first 5 about equally often (16 best); more cost time and blur
    the first hits (one ranking weighs every kept term alike)."""
    max_names: int = 8
    """Most code names of a task that are looked up as definitions."""
    min_phrase_words: int = 3
    """Fewest plain words of a quoted run looked up literally (two match by accident)."""
    max_phrases: int = 8
    """Most quoted runs of a task looked up literally."""
    rare_definitions: int = 6
    """A simple name with more definitions than this is common: expanded only when
    qualified."""
    title_place: float = 3.0
    """Weight of a word of the task's title (its first line)."""
    frame_place: float = 3.0
    """Weight of a function named by a traceback frame."""
    path_place: float = 2.0
    """Weight of a file stem the task writes as a path (a place, not the ``path`` list)."""
    error_place: float = 2.5
    """Weight of an exception name."""
    code_place: float = 2.0
    """Weight of a word in a code block or backticks."""
    name_place: float = 2.5
    """Weight of an identifier-looking word, a declared or dotted name."""
    prose_place: float = 1.0
    """Weight of a plain prose word (rarity capped by ``prose_rarity``)."""


@dataclass(frozen=True, slots=True)
class CandidateTuning:
    """How the ranked lists of one search are drawn and fused into candidates.

    The list weights: symbol-part and path-word matches are plentiful and noisy (every
    ``get_*`` method shares a part), so they count less than text; a file several of
    whose sections match is the strongest file-level evidence; the definitions a pasted
    task names count by their files' order only, since a section-level vote on top cost
    recall@1 (SWE-bench Django split and bench/retrieval.py's typed questions).
    """

    pool: int = 100
    """Candidates asked of each ranked list."""
    stem_most: int = 2
    """A title word names a file by its stem when at most this many files share it."""
    bm25_common_share: float = 0.1
    """A word in more sections than this share is dropped from the bm25 query when rarer
    words remain (it adds little to bm25 but makes the query slow)."""
    aux_share: float = 0.02
    """Secondary documents are matched on words rarer than this share only."""
    path_pool: int = 30
    """Candidates asked of the path-word ranking."""
    rerank_depth: int = 60
    """How many of the best candidates the proximity rerank rescored."""
    definitions_per_name: int = 3
    """Definitions of one task name that enter the ranking."""
    content_weight: float = 1.0
    """Weight of the full-text lists (main and secondary documents)."""
    partial_weight: float = 0.5
    """Weight of the trigram (part-of-a-word) list."""
    symbol_weight: float = 0.6
    """Weight of the symbol-name list."""
    path_weight: float = 0.25
    """Weight of the path-word list."""
    file_weight: float = 2.0
    """Weight of the files several of whose sections match."""
    named_weight: float = 0.0
    """Section-level weight of the definitions a task names (their file counts instead)."""
    named_file_weight: float = 1.0
    """Weight of the files of the definitions a task names."""
    mentioned_weight: float = 1.0
    """Weight of the files a task mentions by path or module."""


@dataclass(frozen=True, slots=True)
class FusionTuning:
    """Reciprocal-rank fusion of ranked lists."""

    rrf_k: int = 60
    """The RRF constant of the keyword lists: a flat curve, every list's top counts."""
    semantic_weight: float = 0.3
    """A semantic list's RRF weight against the keyword list's 1.0."""
    guarded_k: int = 20
    """The RRF constant between keyword and semantic lists: sharper than ``rrf_k`` so
    agreement between the two moves a hit further than a lone semantic vote."""


@dataclass(frozen=True, slots=True)
class RerankTuning:
    """The proximity rerank of the best candidates."""

    coverage_weight: float = 0.6
    """Bonus for the share of query words a section holds."""
    proximity_weight: float = 0.4
    """Bonus for the query words standing close together."""
    pair_weight: float = 0.2
    """Bonus for neighbouring query words found next to each other (up to three pairs)."""
    heading_weight: float = 0.5
    """Bonus for query words in the section's heading."""
    pair_gap_chars: int = 24
    """Two neighbouring query words this close (start to start) form a pair."""
    span_floor_chars: int = 40
    """Spans shorter than this count as fully proximate."""


@dataclass(frozen=True, slots=True)
class HitTuning:
    """How candidates become the hits of ``repocontext_search``."""

    text_weights: tuple[float, ...] = (4.0, 1.5, 2.0, 1.0)
    """bm25 column weights of the text tables: name, path, heading, body."""
    trigram_min: int = 4
    """Shorter words match too many names by substring, so they skip the trigram list."""
    per_file_first: int = 3
    """Hits per file before other files get a turn."""
    long_query_words: int = 24
    """A query of more words is a pasted issue, not a question (typed questions hold at
    most 20): its semantic neighbours only follow the keyword hits, since a static
    vector of a long text is close to the corpus mean and fused it moved gold files down."""


@dataclass(frozen=True, slots=True)
class DocumentTuning:
    """Per-class multipliers of a document's candidates: search ranks by the priors,
    bundle building divides a file's plan rank by the weights.

    The two disagree on purpose: a search hit list shows many files, so a test or a
    changelog only steps back (0.5); a bundle carries few files, so what the task did
    not ask about steps back much further (0.25 and 0.2), and prose stands aside unless
    the task is about documentation.
    """

    test_prior: float = 0.5
    """Search: a test file when the query is not about tests."""
    test_asked_prior: float = 0.7
    """Search: a test file when the query is about tests (the framework still outranks
    the suite)."""
    catalogue_prior: float = 0.3
    """Search: a translation catalogue (``.po``/``.pot``/``.mo``)."""
    prose_prior: float = 0.5
    """Search: prose when the query is not about documentation (code answers most
    questions an agent asks; the prose and examples about it step back)."""
    vendor_prior: float = 0.5
    """Search: vendored third-party code or a minified bundle."""
    changelog_prior: float = 0.5
    """Search: release notes when the query is not about releases."""
    data_prior: float = 0.5
    """Search: a document that is neither code nor prose (configuration, data, a lock
    file, a template), unless the query names the file or a path filter is given."""
    generated_prior: float = 0.3
    """Search: generated or bundled output (``retrieval/generated``, read from its
    content), on top of its path's prior, unless the query names the file or a path
    filter is given: a bundle repeats the source's names, and the source is the edit."""
    test_weight: float = 0.25
    """Bundle: a test file when the task is not about tests."""
    test_asked_weight: float = 0.7
    """Bundle: a test file when the task is about tests."""
    prose_weight: float = 0.4
    """Bundle: prose when the task is not about documentation."""
    prose_asked_weight: float = 1.0
    """Bundle: prose when the task is about documentation."""
    changelog_weight: float = 0.2
    """Bundle: release notes when the task is not about releases."""
    changelog_asked_weight: float = 0.7
    """Bundle: release notes when the task is about releases."""
    vendored_weight: float = 0.4
    """Bundle: a file under another project's licence (it may still be adapted here)."""


@dataclass(frozen=True, slots=True)
class BundleTuning:
    """How ``repocontext_context`` picks files and the definitions it sends of them."""

    tokens_per_file: int = 400
    """Without ``top``, the plan holds a file per this many tokens of budget (a file's
    slices cost a few hundred): more budget considers more files, so it never loses one."""
    expansions_per_name: int = 4
    """Most definitions per task name, and most dependents and tests per definition."""
    name_hits: int = 5
    """Search hits read to find the files that define a simple task name."""
    leading_hits: int = 1
    """Search hits placed before every named or quoted definition: search's first file is
    the likeliest edit more often than the file defining a name the task mentions."""
    literal_sections: int = 4
    """A quoted run of words found in more code sections than this is not specific."""
    leading_definitions: int = 2
    """Definitions placed before the search's first half; the others follow it (eight
    names' definitions ahead of every hit pushed the files the text points at out)."""
    cheap_fraction: int = 8
    """A whole file is "cheap" when its tokens are at most this fraction of the budget..."""
    cheap_max: int = 1600
    """... and at most this many: a larger budget considers more files, not larger ones
    whole, so a file's slices are the same at every budget above 13k."""
    max_slices: int = 6
    """Most symbol or line-span bodies sliced from one file."""
    rank_all_files: int = 3
    """The plan's first files whose every definition competes for their slices."""
    large_class_lines: int = 120
    """A class longer than this is split into its header and its matching members."""
    name_part_weight: float = 2.0
    """A task term in a definition's own name counts this many times its body's share."""
    max_hits: int = 6
    """Most search hits of a file that its slices carry."""
    max_members: int = 3
    """Most members of a split class hit by search that come right after its header."""
    callee_share: float = 0.5
    """A definition the first core one calls gets this share of the file's best score."""
    close_share: float = 0.5
    """A definition search did not hit comes in at this share of the best score or more."""
    sibling_share: float = 0.3
    """A member of the class of one of the first ``sibling_of`` core definitions (a
    method search hit) gets this share of that method's score: a fix often touches the
    methods beside the one the task is about."""
    sibling_of: int = 3
    """How many of the first core definitions lend their score to their siblings."""
    size_lines: int = 40
    """Past this many lines a definition's body score is damped (log)."""


@dataclass(frozen=True, slots=True)
class Tuning:
    """Every ranking knob, one frozen value per stage."""

    text: TextTuning = field(default_factory=TextTuning)
    candidates: CandidateTuning = field(default_factory=CandidateTuning)
    fusion: FusionTuning = field(default_factory=FusionTuning)
    rerank: RerankTuning = field(default_factory=RerankTuning)
    hits: HitTuning = field(default_factory=HitTuning)
    documents: DocumentTuning = field(default_factory=DocumentTuning)
    bundle: BundleTuning = field(default_factory=BundleTuning)


TUNING = Tuning()
"""The tuning every tool uses unless handed another."""
