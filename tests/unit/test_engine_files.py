"""File resolution and reading (file-resolver.ts at 903e156c2; `agentv-v2.md` §4) and the
JavaScript runtime details the engine reproduces (`String.prototype.trim`, Node's `path`)."""

from __future__ import annotations

import os
import threading

import pytest

from agentv_lsp.engine import files, jsrt

EISDIR = "EISDIR: illegal operation on a directory, read"


def test_directory_reference_passes_exists_then_eisdir(repo):
    (repo.root / "docs").mkdir()
    repo.one_case(
        "- role: user\n  content:\n    - type: file\n      value: docs\n    - type: text\n      value: Q\n"
    )
    assert repo.warnings() == [f"Warning: Could not read file <ROOT>/docs: {EISDIR}"]
    assert repo.case()["file_paths"] == []
    messages = [d.message for d in repo.check() if d.code == "validate-file-unreadable"]
    assert messages == [f"Cannot read referenced file: docs ({EISDIR})"]


def test_empty_value_resolves_to_a_root_directory_for_the_validator(repo):
    repo.one_case('- role: user\n  content:\n    - type: file\n      value: ""\n')
    assert repo.warnings() == []  # the loader skips an empty value silently
    messages = [d.message for d in repo.check() if d.code == "validate-file-unreadable"]
    assert messages == [f"Cannot read referenced file:  ({EISDIR})"]


def test_search_roots_walk_from_eval_dir_to_repo_root_then_cwd():
    assert files.build_search_roots("/r/a/b/e.yaml", "/r", "/elsewhere") == (
        "/r/a/b",
        "/r/a",
        "/r",
        "/elsewhere",
    )
    assert files.build_search_roots("/r/a/e.yaml", "/r", "/r") == ("/r/a", "/r")


def test_search_roots_outside_repo_continue_to_filesystem_root():
    assert files.build_search_roots("/x/y/e.yaml", "/r", "/r") == ("/x/y", "/x", "/", "/r")


def test_directory_chain_for_config_lookup():
    assert files.build_directory_chain("/r/a/b/e.yaml", "/r") == ("/r/a/b", "/r/a", "/r")
    assert files.build_directory_chain("/x/y/e.yaml", "/r") == ("/x/y", "/x", "/", "/r")


def test_nearest_copy_wins(repo):
    repo.files({"shared.txt": "ROOT", "a/b/shared.txt": "B", "a/shared.txt": "A"})
    repo.one_case(
        "- role: user\n  content:\n    - type: file\n      value: shared.txt\n", name="a/b/c/eval.yaml"
    )
    c = repo.case(0, "a/b/c/eval.yaml")
    assert c["file_paths"] == ["a/b/shared.txt"]
    assert c["lm"]["question"] == '<file path="shared.txt">\nB\n</file>'


def test_cwd_is_the_last_search_root(make_repo, tmp_path):
    repo = make_repo()
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    (elsewhere / "only-in-cwd.txt").write_text("CWD")
    repo.cwd = elsewhere
    repo.one_case("- role: user\n  content:\n    - type: file\n      value: only-in-cwd.txt\n")
    assert repo.case()["lm"]["question"] == '<file path="only-in-cwd.txt">\nCWD\n</file>'


def test_parent_relative_value_is_resolved_against_every_root(repo):
    fs = files.FileSystem()
    root = str(repo.root)
    res = files.resolve_reference("../x.txt", (f"{root}/a/b", f"{root}/a", root), fs)
    assert res.resolved_path is None
    assert res.display_path == "../x.txt"
    assert res.attempted == (f"{root}/a/x.txt", f"{root}/x.txt", f"{os.path.dirname(root)}/x.txt")


def test_absolute_value_is_tried_literally_then_under_each_root(repo):
    repo.write("docs/x.md", "X")
    fs = files.FileSystem()
    root = str(repo.root)
    res = files.resolve_reference("/docs/x.md", (f"{root}/evals", root), fs)
    assert res.display_path == "docs/x.md"
    assert res.resolved_path == f"{root}/docs/x.md"
    assert res.attempted == ("/docs/x.md", f"{root}/evals/docs/x.md", f"{root}/docs/x.md")


@pytest.mark.parametrize(
    ("raw", "display"),
    [
        ("/a/b", "a/b"),
        ("//a", "a"),
        ("\\a\\b", "a\\b"),
        ("/\\/x", "x"),
        ("/", "/"),
        ("//", "//"),
        ("", ""),
        ("./a", "./a"),
    ],
)
def test_display_path_strips_leading_separators(raw, display):
    assert files.display_path_of(raw) == display


def test_invalid_utf8_is_decoded_with_replacement_characters(repo):
    path = repo.write("bad.txt", b"ok \xff\xfe end")
    assert files.FileSystem().read_text(str(path)) == "ok \ufffd\ufffd end"


def test_missing_file_error_mimics_node(repo):
    path = str(repo.root / "nope.txt")
    with pytest.raises(files.FileReadError) as info:
        files.FileSystem().read_text(path)
    assert str(info.value) == f"ENOENT: no such file or directory, open '{path}'"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_refused_without_blocking(repo):
    fifo = repo.root / "pipe"
    os.mkfifo(fifo)
    outcome: list[object] = []

    def read() -> None:
        try:
            outcome.append(files.FileSystem().read_text(str(fifo)))
        except files.FileReadError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(5)
    assert not worker.is_alive(), "reading a FIFO blocked"
    assert isinstance(outcome[0], files.FileReadError)


def test_reads_outside_allowed_roots_are_blocked(repo, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    fs = files.FileSystem(allowed_roots=(str(repo.root),))
    assert fs.exists(str(outside)) is False
    assert fs.was_blocked(str(outside))
    with pytest.raises(files.FileReadError):
        fs.read_text(str(outside))


def test_overlay_is_served_instead_of_the_disk(repo):
    path = repo.write("a.txt", "disk")
    fs = files.FileSystem(overlays={str(path): "buffer"})
    assert fs.read_text(str(path)) == "buffer"


def test_large_file_is_truncated_at_the_cap(repo):
    path = repo.write("big.txt", "x" * 100)
    result = files.FileSystem(max_bytes=10).read(str(path))
    assert result.text == "x" * 10
    assert result.truncated is True


def test_find_git_root_nearest_ancestor_and_git_file(tmp_path):
    (tmp_path / "a" / ".git").mkdir(parents=True)
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    (tmp_path / "a" / "b" / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git file
    assert files.find_git_root(str(tmp_path / "a" / "b" / "c")) == str(tmp_path / "a" / "b")
    assert files.find_git_root(str(tmp_path / "a")) == str(tmp_path / "a")


def test_find_git_root_never_returns_the_filesystem_root():
    assert files.find_git_root("/", lambda d: True) is None


# -- JavaScript runtime details ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "trimmed"),
    [
        ("\ufeff x \u3000", "x"),
        ("\u00a0x\u2028", "x"),
        ("x \u0085", "x \u0085"),  # NEL is not JS whitespace
        ("\x1cx\x1f", "\x1cx\x1f"),  # nor are the information separators Python strips
        ("\t\v\f\r\n x", "x"),
    ],
)
def test_js_trim_uses_ecmascript_whitespace(text, trimmed):
    assert jsrt.js_trim(text) == trimmed


@pytest.mark.parametrize(
    ("text", "blank"),
    [("", True), ("\ufeff", True), (" \ufeff\u3000", True), ("\u0085", False), ("\x1c ", False), ("\t\n", True),
     ("x", False), ("  \ufeffx", False), ("\u00a0" * 1000, True)],
)  # fmt: skip
def test_is_blank_is_javascripts_trim_not_pythons_isspace(text, blank):
    assert jsrt.is_blank(text) is blank
    assert jsrt.is_blank(text) is (jsrt.js_trim(text) == "")


def test_crlf_to_lf_keeps_lone_cr():
    assert jsrt.crlf_to_lf("a\r\nb\rc\r\r\n") == "a\nb\rc\r\n"


@pytest.mark.parametrize(
    ("path", "normalized"), [("//a//b/../c/", "/a/c/"), ("/a/./b", "/a/b"), ("/..", "/"), ("/a/b/", "/a/b/")]
)
def test_node_normalize(path, normalized):
    assert jsrt.node_normalize(path) == normalized


@pytest.mark.parametrize(
    ("base", "rel", "resolved"),
    [
        ("/r", "a/../b/", "/r/b"),
        ("/r", "/abs", "/abs"),
        ("/r", "", "/r"),
        ("/r/", "x", "/r/x"),
        ("/", "..", "/"),
    ],
)
def test_node_resolve(base, rel, resolved):
    assert jsrt.node_resolve(base, rel) == resolved


def test_capitalize_first():
    assert jsrt.capitalize_first("tool") == "Tool"
    assert jsrt.capitalize_first("") == ""


@pytest.mark.parametrize("allowed", [None, "root"], ids=["trusted", "untrusted"])
def test_a_path_with_a_nul_byte_is_not_found_and_never_raises(tmp_path, allowed):
    """Found by atheris: `value: "a\\0b"` (a NUL escape in a double-quoted YAML string)."""
    roots = None if allowed is None else (str(tmp_path),)
    fs = files.FileSystem(allowed_roots=roots)
    weird = str(tmp_path / "notes\0.md")
    assert fs.exists(weird) is False
    with pytest.raises(files.FileReadError, match="without null bytes"):
        fs.read(weird)


def test_a_file_reference_with_a_nul_byte_is_reported_in_an_untrusted_workspace(tmp_path):
    from agentv_lsp.formats.v2.check import CheckOptions, check_document

    (tmp_path / ".git").mkdir()
    text = (
        "$schema: agentv-eval-v2\nevalcases:\n  - id: c\n    outcome: o\n    input_messages:\n"
        '      - role: user\n        content:\n          - type: file\n            value: "notes\\0.md"\n'
    )
    fs = files.FileSystem(allowed_roots=(str(tmp_path),))
    report = check_document(
        str(tmp_path / "e.eval.yaml"), text, CheckOptions(str(tmp_path), str(tmp_path), fs)
    )
    assert any("not found" in d.message.lower() for d in report.diagnostics), report.diagnostics


def test_folder_entries_are_listed_sorted_with_their_kind(tmp_path):
    (tmp_path / "b.txt").write_text("x")
    (tmp_path / "a").mkdir()
    (tmp_path / "c").symlink_to(tmp_path / "a")
    fs = files.FileSystem(allowed_roots=(str(tmp_path),))
    assert fs.folder_entries(str(tmp_path)) == [("a", True), ("b.txt", False), ("c", True)]
    assert fs.folder_entries(str(tmp_path / "b.txt")) is None  # a file is no folder
    assert fs.folder_entries(str(tmp_path / "missing")) is None


def test_a_folder_outside_the_allowed_roots_is_never_listed(tmp_path):
    inside, outside = tmp_path / "repo", tmp_path / "secrets"
    inside.mkdir()
    outside.mkdir()
    (outside / "key.pem").write_text("x")
    (inside / "link").symlink_to(outside)
    fs = files.FileSystem(allowed_roots=(str(inside),))
    assert fs.folder_entries(str(outside)) is None
    assert fs.folder_entries(str(inside / "link")) is None  # judged after following the link
    assert fs.was_blocked(str(inside / "link"))
    assert files.FileSystem().folder_entries(str(outside)) == [("key.pem", False)]
