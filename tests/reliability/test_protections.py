"""Hostile and huge inputs through the engine, the checker and the CLI.

Each test names, in its docstring, the protection it guards; each was checked to fail with
that protection removed. Cases that could hang or crash the test process when a protection
is missing (a FIFO read, libyaml's C recursion, an alias bomb) run under a time limit or in
a child process with a capped address space.
"""

from __future__ import annotations

import builtins
import itertools
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import agentv_lsp
from agentv_lsp.engine.files import FileReadError, FileSystem
from agentv_lsp.formats.v2.check import CheckOptions, check_document
from agentv_lsp.formats.v2.loader import load_all, open_eval_file
from agentv_lsp.formats.v2.preview import preview_file
from agentv_lsp.yamlpos import parse_yaml

HERE = Path(__file__).resolve().parent
SERVER_SOURCES = str(Path(agentv_lsp.__file__).resolve().parents[1])  # the package under test
MARKER = "AGENTV_RELIABILITY_MARKER"


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
        f"          - type: file\n            value: {json.dumps(value)}\n"
    )


def check(root: Path, text: str, fs: FileSystem | None = None) -> list[tuple[str, str]]:
    opts = CheckOptions(repo_root=str(root), cwd=str(root), fs=fs or FileSystem())
    report = check_document(str(root / "evals" / "e.yaml"), text, opts)
    return [(d.code, d.message) for d in report.diagnostics]


def preview_warnings(root: Path, text: str, fs: FileSystem | None = None) -> list[str]:
    ef = open_eval_file(
        str(root / "evals/e.yaml"), repo_root=str(root), cwd=str(root), fs=fs or FileSystem(), text=text
    )
    return list(preview_file(ef)["warnings"])


# The child's own peak memory. Not ru_maxrss: Linux carries it over fork and exec, so it would
# report the test process's own size (which grows over a long test session).
PEAK_MB = """
def peak_mb():
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration):
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
"""


def run_child(code: str, timeout: float, memory_mb: int = 2048) -> dict[str, Any]:
    """Run Python `code` (which prints one JSON object) in a child with a capped address
    space; a crash, a MemoryError or a timeout comes back as data, never takes us down."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))

    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", PEAK_MB + code],
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=cap,
            env={**os.environ, "PYTHONPATH": SERVER_SOURCES},
        )
    except subprocess.TimeoutExpired:
        return {"outcome": "timeout", "seconds": time.perf_counter() - started}
    if done.returncode != 0:
        return {"outcome": f"exit {done.returncode}", "stderr": done.stderr[-2000:]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["outcome"] = "ok"
    result["seconds"] = time.perf_counter() - started
    return result


PARSE_IN_CHILD = """
import json, resource, sys, time
from agentv_lsp.yamlpos import parse_yaml
text = {text}
start = time.perf_counter()
doc = parse_yaml(text)
print(json.dumps({{
    "kind": doc.error.kind if doc.error else None,
    "message": doc.error.message if doc.error else None,
    "parse_seconds": time.perf_counter() - start,
    "peak_mb": peak_mb(),
}}))
"""


# -- nothing is executed -------------------------------------------------------------------


def hostile_eval(marker_file: Path) -> str:
    return (
        "$schema: agentv-eval-v2\nexecution:\n  evaluators:\n    - name: s\n      type: code\n"
        f"      script: touch {marker_file}; python -c \"open('{marker_file}', 'w')\" # {MARKER}\n"
        "      cwd: .\n    - name: j\n      type: llm_judge\n      prompt: judge.md\n"
        "evalcases:\n  - id: c1\n"
        f"    outcome: \"{{{{ ''.__class__.__mro__ }}}} __import__('os').system('touch {marker_file}') {MARKER}\"\n"
        "    input_messages:\n      - role: user\n"
        f"        content: \"$(touch {marker_file}) `touch {marker_file}` {{{{question}}}} {{% import os %}} {MARKER}\"\n"
        "    expected_messages:\n      - role: assistant\n"
        f"        content: \"{{{{ candidate_answer }}}} eval('1') {MARKER}\"\n"
    )


def test_nothing_from_the_repository_is_ever_executed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Protection: code evaluator scripts are shown and checked, never run; no shell, no
    `eval`/`exec` of repository text, no template engine (spies on every way to start a
    process or evaluate a string, in this process)."""
    marker = tmp_path / "pwned"
    root = make_repo(tmp_path, {"evals/judge.md": f"{{{{ candidate_answer }}}} {{% raw %}} {MARKER}"})
    text = hostile_eval(marker)
    (root / "evals" / "e.yaml").write_text(text)
    calls: list[str] = []

    def forbidden(name: str) -> Callable[..., Any]:
        def spy(*args: object, **kwargs: object) -> Any:
            calls.append(name)
            raise AssertionError(f"{name} called")

        return spy

    for name in ("Popen", "run", "call", "check_call", "check_output", "getoutput", "getstatusoutput"):
        monkeypatch.setattr(subprocess, name, forbidden(f"subprocess.{name}"))
    for name in dir(os):
        if name.startswith(("exec", "spawn", "posix_spawn")) or name in ("system", "popen", "fork", "forkpty"):
            monkeypatch.setattr(os, name, forbidden(f"os.{name}"))
    real_eval, real_exec, real_compile = builtins.eval, builtins.exec, builtins.compile

    def watch(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def spy(source: Any, *args: Any, **kwargs: Any) -> Any:
            if MARKER in str(source) or MARKER in repr(getattr(source, "co_consts", "")):
                calls.append(name)
            return real(source, *args, **kwargs)

        return spy

    monkeypatch.setattr(builtins, "eval", watch("eval", real_eval))
    monkeypatch.setattr(builtins, "exec", watch("exec", real_exec))
    monkeypatch.setattr(builtins, "compile", watch("compile", real_compile))
    modules_before = set(sys.modules)

    check(root, text)
    ef = open_eval_file(str(root / "evals/e.yaml"), repo_root=str(root), cwd=str(root), fs=FileSystem())
    load_all(ef)
    result = preview_file(ef)
    assert result["cases"], result
    assert calls == [] and not marker.exists()
    template_engines = {"jinja2", "mako", "chevron", "pystache"} & (set(sys.modules) - modules_before)
    assert not template_engines


def run_audited(tmp_path: Path, sandbox: Path, workspace: Path | str, *args: str) -> tuple[list[dict[str, Any]], str]:
    log = tmp_path / "audit.jsonl"
    done = subprocess.run(
        [sys.executable, str(HERE / "audited.py"), str(log), str(sandbox), str(workspace), MARKER, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=sandbox,
        env={**os.environ, "PYTHONPATH": SERVER_SOURCES, "AGENTV_AUDIT_MEMORY_MB": "4096"},
    )
    assert "Traceback" not in done.stderr, done.stderr
    records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return records, done.stdout


def test_cli_check_and_preview_never_start_a_process_or_evaluate_text(tmp_path: Path) -> None:
    """Protection: no process and no evaluation of repository text in `check` (one file and
    a folder, checked over worker processes) and `preview` (a Python audit hook watches
    every process start and every compile in the CLI and its workers)."""
    marker = tmp_path / "repo" / "pwned"
    files: dict[str, str | bytes] = {"evals/judge.md": f"{{{{ candidate_answer }}}} {MARKER}"}
    for i in range(6):
        files[f"evals/e{i}.yaml"] = hostile_eval(marker)
    root = make_repo(tmp_path / "repo", files)
    for args in (
        ("cli", "check", "--format", "json", "--no-progress", "evals"),
        ("cli", "check", "--format", "sarif", "evals/e0.yaml"),
        ("cli", "preview", "--json", "evals/e0.yaml"),
        ("cli", "preview", "evals/e1.yaml"),
    ):
        records, out = run_audited(tmp_path, root, "-", *args)
        assert out.strip(), args
        assert records == [], (args, records)
    assert not marker.exists()


# -- bounded reads and what is read -----------------------------------------------------------


def test_referenced_files_are_read_up_to_the_cap_with_a_notice(tmp_path: Path) -> None:
    """Protection: bounded reads (FileSystem.max_bytes) and the `file-truncated` notice in
    the checker and the preview."""
    root = make_repo(tmp_path, {"evals/big.txt": "x" * 5000})
    fs = FileSystem(max_bytes=1000)
    read = fs.read(str(root / "evals/big.txt"))
    assert len(read.text) == 1000 and read.truncated and read.size == 5000
    assert "file-truncated" in [c for c, _ in check(root, eval_with_file("big.txt"), FileSystem(max_bytes=1000))]
    warnings = preview_warnings(root, eval_with_file("big.txt"), FileSystem(max_bytes=1000))
    assert any("read only the first 1,000 bytes" in w for w in warnings), warnings


def test_a_huge_referenced_file_costs_only_the_cap(tmp_path: Path) -> None:
    """Protection: the read stops at the cap: a 4 GiB file (sparse) is read in bounded time
    and memory, never loaded whole."""
    root = make_repo(tmp_path, {})
    huge = root / "evals" / "huge.txt"
    huge.parent.mkdir(parents=True, exist_ok=True)
    with huge.open("wb") as handle:
        handle.truncate(4 << 30)
    code = f"""
import json, resource
from agentv_lsp.engine.files import FileSystem
read = FileSystem(max_bytes=1 << 20).read({str(huge)!r})
print(json.dumps({{"chars": len(read.text), "truncated": read.truncated, "binary": read.binary,
                  "peak_mb": peak_mb()}}))
"""
    result = run_child(code, timeout=30, memory_mb=1024)
    assert result["outcome"] == "ok", result
    assert result["chars"] == 1 << 20 and result["truncated"] and result["binary"]
    assert result["peak_mb"] < 200


def test_binary_files_are_flagged(tmp_path: Path) -> None:
    """Protection: binary detection (NUL bytes) with a `file-binary` warning."""
    root = make_repo(tmp_path, {"evals/blob.bin": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff"})
    diagnostics = check(root, eval_with_file("blob.bin"))
    assert any(c == "file-binary" and "U+FFFD" in m for c, m in diagnostics), diagnostics
    assert any("looks binary" in w for w in preview_warnings(root, eval_with_file("blob.bin")))


# Node 20: `fs.readFileSync(file, "utf8")` on these bytes (WHATWG maximal-subpart replacement).
NODE_UTF8_DECODING = [
    ("6f6b20fffe20656e64", "ok \ufffd\ufffd end"),
    ("c0af", "\ufffd\ufffd"),
    ("e080af", "\ufffd\ufffd\ufffd"),
    ("eda080", "\ufffd\ufffd\ufffd"),
    ("f4908080", "\ufffd\ufffd\ufffd\ufffd"),
    ("e180", "\ufffd"),
    ("e18041", "\ufffdA"),
    ("f09f98", "\ufffd"),
    ("f18080", "\ufffd"),
    ("efbbbf424f4d", "\ufeffBOM"),
    ("f880808080", "\ufffd" * 5),
    ("c2", "\ufffd"),
    ("80bf", "\ufffd\ufffd"),
    ("f09f9880", "😀"),
    ("edbfbf", "\ufffd\ufffd\ufffd"),
    ("e0a0", "\ufffd"),
    ("fe", "\ufffd"),
    ("41c3", "A\ufffd"),
]


@pytest.mark.parametrize(("hex_bytes", "node_text"), NODE_UTF8_DECODING, ids=[h for h, _ in NODE_UTF8_DECODING])
def test_invalid_utf8_is_replaced_as_node_does(tmp_path: Path, hex_bytes: str, node_text: str) -> None:
    """Protection: invalid UTF-8 becomes U+FFFD exactly as Node's readFile(path, "utf8")
    (one per maximal subpart), never an exception, in referenced files and the eval file."""
    root = make_repo(tmp_path, {"evals/bad.txt": bytes.fromhex(hex_bytes)})
    assert FileSystem().read_text(str(root / "evals/bad.txt")) == node_text
    eval_bytes = eval_with_file("bad.txt").replace("value: Look", "value: Look X").encode()
    (root / "evals" / "e.yaml").write_bytes(eval_bytes.replace(b"Look X", b"Look " + bytes.fromhex(hex_bytes)))
    ef = open_eval_file(str(root / "evals/e.yaml"), repo_root=str(root), cwd=str(root), fs=FileSystem())
    question = preview_file(ef)["cases"][0]["lm"]["question"]
    assert "Look " + node_text.rstrip() in question and node_text in question


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_invalid_utf8_matches_a_live_node(tmp_path: Path) -> None:
    """Protection: the same as above on random byte strings, against the node on this machine."""
    import random

    rng = random.Random(11)
    pieces = [0x80, 0xBF, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0x41, 0xA0, 0x9F, 0x90, 0x8F]
    samples = [
        bytes(rng.choice([rng.randrange(256), rng.choice(pieces)]) for _ in range(rng.randint(1, 8))) for _ in range(500)
    ]
    for i, sample in enumerate(samples):
        (tmp_path / f"{i}.bin").write_bytes(sample)
    script = (
        "const fs=require('fs');const out=[];"
        f"for(let i=0;i<{len(samples)};i++){{out.push(fs.readFileSync(process.argv[1]+'/'+i+'.bin','utf8'));}}"
        "process.stdout.write(JSON.stringify(out));"
    )
    node = subprocess.run(["node", "-e", script, str(tmp_path)], capture_output=True, text=True, timeout=60, check=True)
    expected = json.loads(node.stdout)
    fs = FileSystem()
    mismatches = [
        (s.hex(), e) for i, (s, e) in enumerate(zip(samples, expected, strict=True)) if fs.read_text(str(tmp_path / f"{i}.bin")) != e
    ]
    assert mismatches == []


# -- files that are not files -----------------------------------------------------------------


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """Protection: O_NONBLOCK + the regular-file check (a FIFO without a writer would block
    the open forever; with O_NONBLOCK alone it would read as an empty file)."""
    root = make_repo(tmp_path, {})
    (root / "evals").mkdir()
    os.mkfifo(root / "evals" / "pipe")
    with time_limit(10):
        diagnostics = check(root, eval_with_file("pipe"))
        warnings = preview_warnings(root, eval_with_file("pipe"))
    assert any("not a regular file" in m for _, m in diagnostics), diagnostics
    assert any("not a regular file" in w for w in warnings), warnings


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/urandom", "socket", "directory"])
def test_devices_sockets_and_directories_are_refused(tmp_path: Path, target: str) -> None:
    """Protection: only regular files are read (a device like /dev/zero never ends, a
    socket cannot be opened, a directory is EISDIR as in Node)."""
    root = make_repo(tmp_path, {})
    (root / "evals").mkdir()
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(root / "evals" / "socket"))
    (root / "evals" / "directory").mkdir()
    expected = {"socket": "ENXIO", "directory": "EISDIR"}.get(target, "not a regular file")
    try:
        with time_limit(10):
            diagnostics = check(root, eval_with_file(target))
    finally:
        sock.close()
    assert any(expected in m for _, m in diagnostics), diagnostics
    assert not any(c == "file-truncated" for c, _ in diagnostics)


def test_symlink_loops_are_detected_in_bounded_time(tmp_path: Path) -> None:
    """Protection: a symbolic link loop is detected (ELOOP), reported as an unresolvable
    reference with the loop named in the notice's data, and read errors say ELOOP."""
    root = make_repo(tmp_path, {})
    (root / "evals").mkdir()
    os.symlink(root / "evals" / "b", root / "evals" / "a")
    os.symlink(root / "evals" / "a", root / "evals" / "b")
    with time_limit(10):
        diagnostics = check(root, eval_with_file("a"))
        ef = open_eval_file(
            str(root / "evals/e.yaml"), repo_root=str(root), cwd=str(root), fs=FileSystem(), text=eval_with_file("a")
        )
        outcomes = load_all(ef)
    assert any(code == "validate-file-not-found" for code, _ in diagnostics), diagnostics
    notices = [n for outcome in outcomes for n in outcome.notices]
    loops = [n.data.get("loops") for n in notices if n.code == "file-not-found"]
    assert [str(root / "evals" / "a")] in loops, notices
    with pytest.raises(FileReadError, match="ELOOP"):
        FileSystem().read(str(root / "evals" / "a"))


# -- YAML bombs -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape",
    [
        "flow",  # [[[[...]]]] 100,000 deep
        "block-compact",  # - - - - ... 60,000 deep on one line (libyaml's composer crashed near 50k)
        "block-indented",  # a:\n a:\n  a: ... 2,500 deep
        "flow-in-block",
    ],
)
def test_deep_nesting_is_rejected_in_bounded_time_and_memory(shape: str) -> None:
    """Protection: the depth guard before libyaml (libyaml is quadratic in depth and its
    composer recurses on the C stack; it crashed the process near 50,000 levels)."""
    text = {
        "flow": "'a: ' + '[' * 100_000 + ']' * 100_000",
        "block-compact": "'- ' * 60_000 + 'x'",
        "block-indented": "''.join(' ' * i + 'a:\\n' for i in range(2_500)) + ' ' * 2_500 + 'x'",
        "flow-in-block": "''.join(' ' * i + '- \\n' for i in range(600)) + ' ' * 600 + '{a: ' * 30_000 + '}' * 30_000",
    }[shape]
    result = run_child(PARSE_IN_CHILD.format(text=text), timeout=30)
    assert result["outcome"] == "ok", result
    assert result["kind"] == "too-deep", result
    assert "deeper than 1000 levels" in result["message"]
    assert result["parse_seconds"] < 10 and result["peak_mb"] < 800, result


def test_nesting_just_past_the_limit_is_a_clear_error_and_just_under_loads() -> None:
    """Protection: MAX_DEPTH with the runtime's reason in the message; no false alarm below."""
    doc = parse_yaml("a: " + "[" * 1500 + "]" * 1500)
    assert doc.error is not None and doc.error.kind == "too-deep" and "1,500" in doc.error.message
    assert parse_yaml("a: " + "[" * 900 + "]" * 900).error is None


def billion_laughs(levels: int = 9) -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    names = "abcdefghijklmnop"
    for prev, name in itertools.pairwise(names[:levels]):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_billion_laughs_is_rejected_like_the_runtime() -> None:
    """Protection: eemeli/yaml's alias-count limit (a shared-node expansion bomb: 9^9
    strings if expanded) in bounded time and memory."""
    result = run_child(PARSE_IN_CHILD.format(text=repr(billion_laughs())), timeout=20, memory_mb=1024)
    assert result["outcome"] == "ok", result
    assert result["kind"] == "alias-limit", result
    assert result["parse_seconds"] < 2 and result["peak_mb"] < 300, result


def test_an_alias_bomb_in_an_eval_file_is_a_clear_diagnostic(tmp_path: Path) -> None:
    """Protection: the alias limit reaches the checker as one error that names it (as
    `agentv validate` does: the file's $schema cannot be read; `yaml-alias-limit` when the
    kind is known, as in the editor)."""
    root = make_repo(tmp_path, {})
    text = "$schema: agentv-eval-v2\n" + billion_laughs(6) + "evalcases: [*f]\n"
    path = str(root / "evals" / "e.yaml")
    with time_limit(10):
        named = check_document(path, text, CheckOptions(str(root), str(root), FileSystem())).diagnostics
        known = check_document(path, text, CheckOptions(str(root), str(root), FileSystem()), kind="eval").diagnostics
    assert len(named) == 1 and "Excessive alias count" in named[0].message, named
    assert [d.code for d in known] == ["yaml-alias-limit"], known


# -- untrusted workspaces --------------------------------------------------------------------


def untrusted_layout(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(sandbox, repository root, workspace): the workspace is a folder of a git repository
    whose root holds a config, targets and secrets; more secrets sit outside both."""
    sandbox = tmp_path / "sandbox"
    outside = sandbox / "outside"
    outside.mkdir(parents=True)
    (outside / "secret.md").write_text("TOKEN=outside-secret")
    (outside / "dir").mkdir()
    (outside / "dir" / "secret.md").write_text("TOKEN=outside-dir-secret")
    repo = make_repo(
        sandbox / "repo",
        {
            ".agentv/config.yaml": "$schema: agentv-config-v2\nguideline_patterns: ['**/*.md']\n# TOKEN=config-secret\n",
            ".agentv/targets.yaml": "$schema: agentv-targets-v2.2\ntargets:\n  - name: t\n    provider: mock\n# TOKEN=targets-secret\n",
            "repo-secret.md": "TOKEN=repo-secret",
        },
    )
    workspace = repo / "ws"
    (workspace / "evals").mkdir(parents=True)
    (workspace / "evals" / "inside.md").write_text("fine")
    os.symlink(outside / "secret.md", workspace / "evals" / "link.md")
    os.symlink(outside / "dir", workspace / "evals" / "dirlink")
    os.symlink(repo, workspace / "up")
    references = [
        "../../../outside/secret.md",
        "../../repo-secret.md",
        str(outside / "secret.md"),
        "/" + str(outside / "secret.md"),
        "link.md",
        "dirlink/secret.md",
        "up/repo-secret.md",
        "../../.agentv/config.yaml",
        "inside.md",
    ]
    content = "".join(
        f"          - type: file\n            value: {json.dumps(r)}\n" for r in references
    )
    text = (
        "$schema: agentv-eval-v2\nexecution:\n  target: t\n  evaluators:\n    - name: j\n      type: llm_judge\n"
        "      prompt: ../../repo-secret.md\n    - name: c\n      type: code\n      script: cat secret\n"
        "      cwd: ../../../outside\nevalcases:\n  - id: c1\n    outcome: o\n    input_messages:\n"
        "      - role: user\n        content:\n" + content
        + "    expected_messages:\n      - role: assistant\n        content:\n"
        "          - type: file\n            value: ../../repo-secret.md\n"
    )
    (workspace / "evals" / "e.yaml").write_text(text)
    return sandbox, repo, workspace


def test_untrusted_workspace_reads_nothing_outside(tmp_path: Path) -> None:
    """Protection: FileSystem.allowed_roots: no '../', absolute, symlinked (file or folder)
    reference, and no config or targets file above the workspace is read, and the
    diagnostics say why."""
    _, repo, workspace = untrusted_layout(tmp_path)
    fs = FileSystem(allowed_roots=(str(workspace),))
    path = workspace / "evals" / "e.yaml"
    text = path.read_text()
    ef = open_eval_file(str(path), repo_root=str(repo), cwd=str(workspace), fs=fs, text=text)
    outcomes = load_all(ef)
    preview = preview_file(ef)
    report = check_document(str(path), text, CheckOptions(repo_root=str(repo), cwd=str(workspace), fs=fs))
    everything = repr(outcomes) + json.dumps(preview, default=str) + repr(report.diagnostics)
    assert "TOKEN" not in everything
    assert "fine" in json.dumps(preview)  # the file inside the workspace is read
    messages = [d.message for d in report.diagnostics]
    untrusted = [m for m in messages if "not trusted" in m or "untrusted" in m]
    assert len(untrusted) >= 7, messages


def test_untrusted_workspace_opens_no_path_outside_under_audit(tmp_path: Path) -> None:
    """Protection: the same, watched by an audit hook on every open/listdir/scandir of the
    check and preview: not one path outside the workspace (symlinks resolved) is touched."""
    sandbox, repo, workspace = untrusted_layout(tmp_path)
    records, out = run_audited(tmp_path, sandbox, workspace, "untrusted", str(workspace / "evals" / "e.yaml"), str(repo))
    assert "TOKEN" not in out
    assert records == []
    (tmp_path / "trusted").mkdir()
    trusted_records, trusted_out = run_audited(
        tmp_path / "trusted", sandbox, workspace, "cli", "preview", "--json", str(workspace / "evals" / "e.yaml")
    )
    assert "TOKEN" in trusted_out and any(r["kind"] == "outside" for r in trusted_records), (
        "the audit must see the reads a trusted run makes, or it proves nothing"
    )
