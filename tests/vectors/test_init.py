import repoctx.vectors as vectors


def test_all_is_sorted_and_complete():
    public = {n for n in dir(vectors) if not n.startswith("_")} - {"annotations"}
    modules_not_exported = {"backfill", "embedder", "export", "minilm", "semantic", "settings",
                            "source_texts"}
    assert vectors.__all__ == sorted(vectors.__all__)
    assert public - set(vectors.__all__) <= modules_not_exported
