"""Hostile and huge inputs: each test names the protection it guards and fails without it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agentv_lsp.checks.document import CheckOptions, check_document
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.engine.loader import load_all, open_eval_file
from agentv_lsp.engine.preview import preview_file
from agentv_lsp.yamlpos import parse_yaml


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Fail instead of hanging when a protection is missing (e.g. a FIFO read blocks)."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"took longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def make_repo(root: Path, files: dict[str, str | bytes]) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


def eval_with_file(value: str) -> str:
    return (
        "$schema: agentv-eval-v2\nevalcases:\n  - id: c1\n    outcome: o\n    input_messages:\n"
        "      - role: user\n        content:\n          - type: text\n            value: Look\n"
        f"          - type: file\n            value: {value}\n"
    )


def check(root: Path, text: str, fs: FileSystem | None = None) -> list[tuple[str, str]]:
    opts = CheckOptions(repo_root=str(root), cwd=str(root), fs=fs or FileSystem())
    report = check_document(str(root / "evals" / "e.yaml"), text, opts)
    return [(d.code, d.message) for d in report.diagnostics]


def test_nothing_from_the_repository_is_ever_executed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Protection: code evaluator scripts are shown and checked, never run."""
    marker = tmp_path / "pwned"
    text = (
        "$schema: agentv-eval-v2\nexecution:\n  evaluators:\n    - name: s\n      type: code\n"
        f"      script: touch {marker}\n      cwd: .\nevalcases:\n  - id: c1\n    outcome: '{{{{candidate_answer}}}}'\n"
        "    input_messages:\n      - role: user\n        content: $(touch x) {{question}}\n"
    )
    root = make_repo(tmp_path, {"evals/e.yaml": text})
    calls: list[str] = []

    def forbidden(name: str):  # type: ignore[no-untyped-def]
        def spy(*args: object, **kwargs: object) -> None:
            calls.append(name)
            raise AssertionError(f"{name} called")

        return spy

    monkeypatch.setattr(subprocess, "Popen", forbidden("Popen"))
    monkeypatch.setattr(os, "system", forbidden("os.system"))
    monkeypatch.setattr(os, "execv", forbidden("os.execv"))
    monkeypatch.setattr(os, "execvp", forbidden("os.execvp"))
    monkeypatch.setattr(os, "posix_spawn", forbidden("os.posix_spawn"))
    check(root, text)
    ef = open_eval_file(str(root / "evals/e.yaml"), repo_root=str(root), cwd=str(root), fs=FileSystem())
    preview_file(ef)
    assert calls == [] and not marker.exists()


def test_referenced_files_are_read_up_to_the_cap_with_a_notice(tmp_path: Path) -> None:
    """Protection: bounded reads (FileSystem.max_bytes) and a truncation notice."""
    root = make_repo(tmp_path, {"evals/big.txt": "x" * 5000})
    fs = FileSystem(max_bytes=1000)
    assert len(fs.read_text(str(root / "evals/big.txt"))) == 1000
    codes = [c for c, _ in check(root, eval_with_file("big.txt"), fs)]
    assert "file-truncated" in codes
    ef = open_eval_file(
        str(root / "evals/e.yaml"),
        repo_root=str(root),
        cwd=str(root),
        fs=FileSystem(max_bytes=1000),
        text=eval_with_file("big.txt"),
    )
    assert any("read only the first 1,000 bytes" in w for w in preview_file(ef)["warnings"])


def test_binary_files_are_flagged(tmp_path: Path) -> None:
    """Protection: binary detection (NUL bytes) with a warning."""
    root = make_repo(tmp_path, {"evals/blob.bin": b"\x89PNG\x00\x00\x01"})
    assert "file-binary" in [c for c, _ in check(root, eval_with_file("blob.bin"))]


def test_invalid_utf8_becomes_replacement_characters_like_node(tmp_path: Path) -> None:
    """Protection: invalid UTF-8 is decoded as Node does (U+FFFD), never an exception."""
    root = make_repo(tmp_path, {"evals/bad.txt": b"ok \xff\xfe end"})
    assert FileSystem().read_text(str(root / "evals/bad.txt")) == "ok \ufffd\ufffd end"


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """Protection: O_NONBLOCK + regular-file check (a FIFO without a writer would block forever)."""
    root = make_repo(tmp_path, {})
    os.mkfifo(root / "evals_fifo")
    (root / "evals").mkdir()
    os.replace(root / "evals_fifo", root / "evals" / "pipe")
    with time_limit(10):
        diagnostics = check(root, eval_with_file("pipe"))
    assert any("not a regular file" in m for _, m in diagnostics)


def test_devices_and_sockets_are_refused(tmp_path: Path) -> None:
    """Protection: only regular files are read (a device like /dev/zero never ends)."""
    root = make_repo(tmp_path, {})
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(root / "sock"))
    try:
        with time_limit(10):
            for target in ("/dev/zero", str(root / "sock")):
                diagnostics = check(root, eval_with_file(target))
                assert any("not a regular file" in m or "Cannot read" in m for _, m in diagnostics), target
    finally:
        sock.close()


def test_symlink_loops_are_reported_not_followed_forever(tmp_path: Path) -> None:
    """Protection: a symlink loop is an unresolvable reference, reported with its paths."""
    root = make_repo(tmp_path, {})
    (root / "evals").mkdir()
    os.symlink(root / "evals" / "b", root / "evals" / "a")
    os.symlink(root / "evals" / "a", root / "evals" / "b")
    with time_limit(10):
        diagnostics = check(root, eval_with_file("a"))
    assert any(code in ("validate-file-not-found", "file-not-found") for code, _ in diagnostics)


def test_deep_nesting_is_rejected_in_bounded_time() -> None:
    """Protection: the depth guard before libyaml (quadratic in depth; its composer
    segfaults near 50,000 levels)."""
    for text in ("a: " + "[" * 100_000 + "]" * 100_000, "".join(" " * i + "- " for i in range(3000)) + "x"):
        start = time.perf_counter()
        with time_limit(20):
            doc = parse_yaml(text)
        assert doc.error is not None and doc.error.kind in ("too-deep", "syntax")
        assert time.perf_counter() - start < 20


def test_flow_nesting_just_past_the_limit_is_a_clear_error() -> None:
    """Protection: MAX_DEPTH with the runtime's reason in the message."""
    doc = parse_yaml("a: " + "[" * 1500 + "]" * 1500)
    assert doc.error is not None and doc.error.kind == "too-deep" and "1,500" in doc.error.message


def test_billion_laughs_is_rejected_like_the_runtime() -> None:
    """Protection: eemeli/yaml's alias-count limit (a shared-node expansion bomb)."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    start = time.perf_counter()
    doc = parse_yaml("\n".join(lines))
    assert doc.error is not None and doc.error.kind == "alias-limit"
    assert time.perf_counter() - start < 2


def test_untrusted_workspace_reads_nothing_outside(tmp_path: Path) -> None:
    """Protection: FileSystem.allowed_roots: no '../', absolute or symlinked escape."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("TOKEN=hunter2")
    root = make_repo(tmp_path / "ws", {})
    (root / "evals").mkdir()
    os.symlink(outside / "secret.md", root / "evals" / "link.md")
    fs = FileSystem(allowed_roots=(str(root),))
    for value in ("../../outside/secret.md", str(outside / "secret.md"), "link.md"):
        text = eval_with_file(value)
        ef = open_eval_file(str(root / "evals/e.yaml"), repo_root=str(root), cwd=str(root), fs=fs, text=text)
        outcomes = load_all(ef)
        assert "hunter2" not in repr(outcomes), value
        messages = [m for _, m in check(root, text, fs)]
        assert any("untrusted" in m for m in messages), (value, messages)
