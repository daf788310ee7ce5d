import pytest

from repoctx import FORMAT_VERSION, default_repo_id, open_store
from repoctx.crdt import record
from repoctx.errors import InvalidKeyError, StoreFormatError, StoreMissingError
from repoctx.trees import codec, tree_of
from tests.conftest import lww_record


def test_open_creates_the_store_directory_and_remembers_its_replica(tmp_path):
    with open_store(tmp_path) as s:
        replica = s.replica_id
        assert (tmp_path / ".repoctx" / "lmdb" / "data.mdb").is_file()
    with open_store(tmp_path) as s:
        assert s.replica_id == replica
    with open_store(tmp_path, replica_id="cluster-a") as s:  # config only, no migration
        assert s.replica_id == "cluster-a"


def test_ticks_survive_a_restart(tmp_path):
    with open_store(tmp_path, repo_id="demo") as s:
        s.trees.merge(s.key("file", "a"), lww_record(s, size=1))
        last = s.clock.last
    with open_store(tmp_path, repo_id="demo") as s:
        s.clock.wall = lambda: 0  # the wall clock jumped back across the restart
        assert s.tick() > last


def test_a_newer_format_is_refused_with_both_versions(tmp_path):
    with open_store(tmp_path) as s, s.batch() as b:
        b.put_local("format", FORMAT_VERSION + 1)
    with pytest.raises(StoreFormatError, match=f"format {FORMAT_VERSION + 1}.*{FORMAT_VERSION}"):
        open_store(tmp_path)


def test_an_open_without_create_of_a_missing_store_says_what_to_do(tmp_path):
    for options in ({"readonly": True}, {"create": False}):
        with pytest.raises(StoreMissingError, match=f"no index for {tmp_path}: run `repoctx "
                           f"index {tmp_path}`"):
            open_store(tmp_path, **options)
    assert list(tmp_path.iterdir()) == []


def test_a_new_store_ignores_itself_for_git(tmp_path):
    open_store(tmp_path, repo_id="demo").close()
    assert (tmp_path / ".repoctx" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_bad_repo_id_creates_nothing(tmp_path):
    with pytest.raises(InvalidKeyError):
        open_store(tmp_path, repo_id="bad id!")
    assert list(tmp_path.iterdir()) == []


def test_a_worktree_and_a_submodule_find_their_git_config(tmp_path):
    common = tmp_path / "main" / ".git"
    (common / "worktrees" / "w").mkdir(parents=True)
    (common / "config").write_text('[remote "origin"]\n\turl = https://example.org/a/b.git\n')
    (common / "worktrees" / "w" / "commondir").write_text("../..\n")
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / ".git").write_text(f"gitdir: {common / 'worktrees' / 'w'}\n")
    assert default_repo_id(tmp_path / "w") == "a-b"
    module = tmp_path / "main" / ".git" / "modules" / "sub"
    module.mkdir(parents=True)
    (module / "config").write_text('[remote "origin"]\n\turl = git@example.org:c/d.git\n')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".git").write_text("gitdir: ../main/.git/modules/sub\n")
    assert default_repo_id(tmp_path / "sub") == "c-d"


def test_backup_is_a_compact_copy_that_takes_a_new_replica_id(tmp_path):
    with open_store(tmp_path / "repo", repo_id="demo") as s:
        s.merge(s.key(), lww_record(s, name="demo"))
        s.merge(s.key("file", "a"), lww_record(s, size=1))
        s.backup(tmp_path / "copy")
        original = s.replica_id
    with open_store(tmp_path / "repo", store_dir=tmp_path / "copy") as restored:
        assert restored.replica_id != original
        assert restored.repo_id == "demo"
        assert record.value(restored.get("repo/demo/file/a"))["size"] == 1


def test_repo_id_defaults(tmp_path):
    repo = tmp_path / "My Project"
    (repo / ".git").mkdir(parents=True)
    assert default_repo_id(repo) == "My-Project"
    (repo / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = git@github.com:Acme/Widgets.git\n')
    assert default_repo_id(repo) == "acme-widgets"
    (repo / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = https://github.com/acme/widgets\n')
    assert default_repo_id(repo) == "acme-widgets"
    for local in ("/srv/git/my.project.git", "../upstream", "file:///srv/x.git"):
        (repo / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {local}\n')
        assert default_repo_id(repo) == "My-Project"  # a local origin: the folder's name
    with pytest.raises(InvalidKeyError):
        open_store(repo, repo_id="no/slashes")


def test_the_only_repository_is_the_default(tmp_path):
    with open_store(tmp_path, repo_id="solo") as s:
        s.trees.merge(s.key(), lww_record(s, name="solo"))
    with open_store(tmp_path) as s:
        assert s.repo_id == "solo" and s.repo_ids() == ["solo"]


def test_gc_and_stats(store):
    store.trees.merge(store.key("file", "a"), lww_record(store, size=1))
    by_name = {t.name: t for t in store.stats()}
    assert by_name["repo-context-structural"].records == 1
    assert by_name["repo-context-structural"].bytes > 0
    assert set(store.gc()) >= {"repo-context-structural", "repo-context-memory"}


def test_a_format_1_store_keeps_reading_and_is_marked_2_by_its_first_writer(tmp_path):
    big = {f"f{i}": "src/pkg/module.py" for i in range(12)}
    with open_store(tmp_path, repo_id="demo") as s:
        key = s.key("file", "a.py")
        s.trees.merge(key, lww_record(s, **big))
        expected = s.get(key)
        plain = codec.encode_plain(tree_of(key), expected)
        with s.trees.env.begin(write=True) as txn:  # as format 1 stored it: plain msgpack
            txn.put(key.encode(), plain, db=s.trees.dbs[tree_of(key).name])
        with s.batch() as b:
            b.put_local("format", 1)
    with open_store(tmp_path, repo_id="demo", readonly=True) as s:
        assert s.get(key) == expected
        assert s.trees.get_local("format") == 1  # a reader changes nothing
    with open_store(tmp_path, repo_id="demo") as s:
        assert s.trees.get_local("format") == FORMAT_VERSION == 2  # older repoctx now refuses it
        assert s.get(key) == expected
        s.trees.merge(key, lww_record(s, f0="src/pkg/other.py"))
        with s.trees.env.begin() as txn:
            stored = txn.get(key.encode(), db=s.trees.dbs[tree_of(key).name])
        assert stored[0] == codec.COMPRESSED
        assert record.value(s.get(key))["f0"] == "src/pkg/other.py"
