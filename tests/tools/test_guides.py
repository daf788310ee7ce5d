"""tools/guides: every tool of ours has guidance beyond the one sentence a model is handed."""

from repoctx.tools.guides import GUIDES
from repoctx.tools.registry import REPOCONTEXT_TOOLS


def test_one_guide_per_tool_each_saying_more_than_the_description():
    assert set(GUIDES) == set(REPOCONTEXT_TOOLS)
    for name, guide in GUIDES.items():
        assert guide.endswith(".") and len(guide) > len(REPOCONTEXT_TOOLS[name].description)
