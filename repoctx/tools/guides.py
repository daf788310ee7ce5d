"""tools/guides — the longer guidance for each repocontext tool: what ``repoctx tools NAME``
prints above its arguments and output fields.

The description an MCP client hands a model is one short sentence (``Tool.description``),
because every agent session pays for the whole tool list on every turn; what a careful
caller may want beyond it lives here, read only when asked for.
"""

from __future__ import annotations

GUIDES: dict[str, str] = {
    "repocontext_changed": (
        "What changed in the working tree (added, updated, removed files), which symbols "
        "those edits touch, what depends on them and which tests to run. The baseline is "
        "since, a git revision (HEAD, main, HEAD~3, a sha; default HEAD in a git checkout): "
        "git's tree at that commit, untracked files git does not ignore included; since "
        "\"index\" (the default outside git) is the last index instead. A definition is "
        "modified only when its own text changed, so a moved one is not; since names the "
        "commit compared with and cutFiles the differing files left out past 2,000. An "
        "unknown revision, or one that is not a commit, is a tool error naming it."),
    "repocontext_context": (
        "Assemble the code a task needs within a token budget: the best search hits, the "
        "definitions the task names, the ones holding text it quotes (an error message or "
        "a log line, looked up literally), what depends on them and their tests, packed "
        "as whole files, symbol slices, outlines or paths, the likeliest edit first. "
        "Packing drops what does not fit, never reorders. The whole JSON answer fits "
        "responseBudgetTokens; units already delivered to the session (or listed in seen) "
        "come back under reused and cost nothing."),
    "repocontext_forget": (
        "Delete a memory entry, or with lapse=true let it expire after lapseSeconds (a lapse "
        "never shortens a later expiry)."),
    "repocontext_health": (
        "Check that the store and the ContextPull export open, with versions."),
    "repocontext_index_status": (
        "Whether the index is ready, being built or failed, with file counters, timings, "
        "the last error and ageSeconds (since the last pass committed; a watching server "
        "re-indexes on every change, so a quiet tree's index is current however old)."),
    "repocontext_list_topics": (
        "List the memory topics with how many live entries each holds."),
    "repocontext_neighbors": (
        "Walk the links around a memory entry, file or symbol breadth-first: what it links to"
        " and which entries link to it, each neighbour checked for staleness."),
    "repocontext_outline": (
        "List what one file declares (classes, functions, methods, variables with their "
        "signatures and line spans), its digest and what a full read of it would cost in "
        "tokens — answered from the index alone, without reading the file."),
    "repocontext_recall": (
        "Read one memory entry: kind, fields, tags, links, expiry, and whether its links to "
        "files and symbols went stale (the code changed since the link was made) or dangle "
        "(the target is not in the index)."),
    "repocontext_related": (
        "For a file or a symbol: the modules it imports, the symbols that depend on it and "
        "the tests that cover it, from the reverse cross-reference index (no scan); at most k"
        " entries per list, omitted counts the rest."),
    "repocontext_remember": (
        "Store a decision, note or memory next to the code: a topic, an optional id (one is "
        "generated), title, body, author, provenance, tags, typed links to files, symbols or "
        "other entries (the linked code's digest is captured so later drift shows as stale) "
        "and an optional time to live. Answers the entry's key. kind (decision, note or "
        "memory) defaults to note and is set when the entry is created; a link target may be "
        "a path, a fully-qualified symbol name or a key."),
    "repocontext_scan": (
        "Page through files, packages, symbols, memory entries or one topic in key order. "
        "Bulk pages do not evaluate staleness or expiry (those fields are null); recall a key"
        " for them."),
    "repocontext_search": (
        "Find where something lives in the repository: ranked hits over files, symbols and "
        "sections, each with the matched lines, a snippet around the match, why it matched "
        "(symbol, path, heading, content, typo correction) and whether the file on disk is "
        "still what was indexed (fresh). refresh re-indexes stale files first; queries "
        "answers several related queries in one call. indexAgeSeconds: the index's age. "
        "A server of several repositories searches one per call (repo)."),
    "repocontext_stats": (
        "How many calls this server answered, the tokens it sent, the tokens of full file "
        "reads those answers replaced, and the net saving."),
    "repocontext_symbols": (
        "Find symbols (classes, functions, methods, variables) by name, part of a name or "
        "description, with where each is declared."),
    "repocontext_update": (
        "Edit an existing memory entry: set fields (title, body, author, provenance; each a "
        "last-writer-wins write, untouched fields kept; a body edit changes only the changed "
        "region), add or remove tags and links. The remaining TTL is kept."),
}
