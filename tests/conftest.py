"""Shared test helpers: locating ../shared, building tiny eval repositories, running the CLI.

- `shared_dir` (fixture) / `find_shared_dir()`: the `shared/` folder that sits beside the
  repository (`../shared`, or `$AGENTV_SHARED`); tests that need it skip cleanly without it.
- `make_repo` (fixture): a factory building a tiny eval repository in `tmp_path` from a dict
  `{relative path: text | bytes}` (a path ending in "/" is a directory) with `.git/` and, on
  request, `.agentv/config.yaml`; `build_repo` (session fixture) does the same in a given folder.
- `repo` (fixture): an empty such repository (with `.git/`), ready for `repo.eval(...)`.
- `run_cli` (fixture): `python -m agentv_lsp ...` in a subprocess, never a shell.

The engine is imported lazily, inside the helpers, so that a broken import shows up as a
failing test rather than as a collection error of the whole suite. Test modules never import
this file (`conftest` is not a stable module name when several conftest.py files exist):
everything is reached through fixtures.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SERVER_DIR = REPO_ROOT / "server"
if str(SERVER_DIR) not in sys.path:  # works without `pip install -e .` too
    sys.path.insert(0, str(SERVER_DIR))

EVAL_HEADER = "$schema: agentv-eval-v2\nevalcases:\n"


def find_shared_dir() -> Path | None:
    """`$AGENTV_SHARED`, else the `shared/` folder beside the repository; None when absent."""
    env = os.environ.get("AGENTV_SHARED")
    candidate = Path(env) if env else Path(__file__).resolve().parents[2] / "shared"
    return candidate if candidate.is_dir() else None


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    found = find_shared_dir()
    if found is None:
        pytest.skip("../shared (or $AGENTV_SHARED) is not available")
    return found


def cli_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a CLI subprocess: our sources first on the path, no colour forcing."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SERVER_DIR), env.get("PYTHONPATH", "")) if p)
    env["PYTHONIOENCODING"] = "utf-8"
    env.update(extra or {})
    return env


@pytest.fixture(scope="session")
def subprocess_env() -> dict[str, str]:
    """`cli_env()`: for tools that start `python -m agentv_lsp` themselves (compare.py)."""
    return cli_env()


@pytest.fixture
def run_cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    def run(
        *args: str, cwd: Path | str | None = None, env: Mapping[str, str] | None = None, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "agentv_lsp", *args],
            cwd=cwd,
            env=cli_env(env),
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
        )

    return run


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Callable[..., CliResult]:
    """`agentv_lsp.cli.main(args)` in this process, in `cwd`, with stdout/stderr captured (not
    a TTY). argparse's SystemExit becomes the exit code; the garbage collector, which the
    commands switch off for speed, is switched back on."""

    def run(*args: str, cwd: Path | str) -> CliResult:
        from agentv_lsp.cli import main

        monkeypatch.chdir(cwd)
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            gc.enable()
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


def write_tree(root: Path, files: Mapping[str, Any]) -> None:
    """Write `{relative path: str | bytes}` under `root`; a path ending in "/" is created as a
    directory. Text is written byte for byte (no newline translation), so CRLF stays CRLF."""
    for rel, content in files.items():
        target = root / rel
        if rel.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_bytes(str(content).encode("utf-8"))


def config_text(patterns: Sequence[str] | None) -> str:
    lines = ["$schema: agentv-config-v2"]
    if patterns is not None:
        lines.append("guideline_patterns:" + ("" if patterns else " []"))
        lines.extend(f"  - {_quote(p)}" for p in patterns)
    return "\n".join(lines) + "\n"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass
class Repo:
    """A tiny eval repository on disk. The working directory used for resolution is `cwd`
    (the root by default), as in the golden harness."""

    root: Path
    cwd: Path | None = None
    _fs: Any = field(default=None, repr=False)

    def path(self, rel: str) -> Path:
        return self.root / rel

    def write(self, rel: str, content: str | bytes) -> Path:
        write_tree(self.root, {rel: content})
        return self.root / rel

    def files(self, files: Mapping[str, Any]) -> Repo:
        write_tree(self.root, files)
        return self

    def config(self, patterns: Sequence[str] | None = None, *, at: str = "", text: str | None = None) -> Path:
        rel = f"{at.rstrip('/')}/.agentv/config.yaml" if at else ".agentv/config.yaml"
        return self.write(rel, text if text is not None else config_text(patterns))

    def eval(self, cases: str, name: str = "eval.yaml", *, header: str = EVAL_HEADER) -> Path:
        """An eval file: the `$schema`/`evalcases:` header plus the (dedented) case list."""
        return self.write(name, header + textwrap.dedent(cases).lstrip("\n"))

    def one_case(
        self,
        messages: str,
        *,
        expected: str | None = None,
        extra: str = "",
        name: str = "eval.yaml",
        case_id: str = "c",
    ) -> Path:
        """An eval file with one case `c` (outcome `o`) whose input_messages (and optionally
        expected_messages) are the given YAML lists, written at column 0."""

        def block(yaml_list: str) -> str:
            return textwrap.indent(textwrap.dedent(yaml_list).strip("\n") + "\n", "      ")

        text = f"  - id: {case_id}\n    outcome: o\n    input_messages:\n" + block(messages)
        if expected is not None:
            text += "    expected_messages:\n" + block(expected)
        if extra:
            text += textwrap.indent(textwrap.dedent(extra).strip("\n") + "\n", "    ")
        return self.write(name, EVAL_HEADER + text)

    def case_with(self, messages: str, **kw: Any) -> dict[str, Any]:
        """`one_case(...)`, then the previewed case (asserting that it loads)."""
        name = kw.get("name", "eval.yaml")
        self.one_case(messages, **kw)
        return self.case(0, name)

    # -- the engine -----------------------------------------------------------------------
    def open(self, rel: str = "eval.yaml") -> Any:
        from agentv_lsp.engine.files import FileSystem
        from agentv_lsp.formats.v2.loader import open_eval_file

        cwd = str(self.cwd or self.root)
        return open_eval_file(
            str(self.root / rel), repo_root=str(self.root), cwd=cwd, fs=FileSystem(), given_path=rel
        )

    def preview(self, rel: str = "eval.yaml", *, case: str | None = None) -> dict[str, Any]:
        """What `agentv-lsp preview --json` prints for the file (paths relative to the root)."""
        from agentv_lsp.formats.v2.preview import preview_file

        return preview_file(self.open(rel), case_id=case)

    def case(self, index: int = 0, rel: str = "eval.yaml") -> dict[str, Any]:
        result = self.preview(rel)
        assert result["load_error"] is None, result["load_error"]
        cases = result["cases"]
        assert len(cases) > index, f"only {len(cases)} case(s) loaded; warnings: {result['warnings']}"
        return cases[index]

    def scrub(self, text: str) -> str:
        return text.replace(str(self.root), "<ROOT>")

    def warnings(self, rel: str = "eval.yaml") -> list[str]:
        return [self.scrub(w) for w in self.preview(rel)["warnings"]]

    def check(self, rel: str = "eval.yaml", *, kind: str | None = None, fs: Any = None) -> list[Any]:
        """The checker's diagnostics for one file (as `agentv-lsp check FILE` computes them)."""
        from agentv_lsp.formats.v2.check import CheckOptions, check_document

        path = self.root / rel
        opts = CheckOptions(repo_root=str(self.root), cwd=str(self.cwd or self.root))
        if fs is not None:
            opts.fs = fs
        text = path.read_bytes().decode("utf-8", errors="replace")
        return check_document(str(path), text, opts, kind=kind).diagnostics  # type: ignore[arg-type]


def build_repo_at(
    root: Path,
    files: Mapping[str, Any] | None = None,
    *,
    patterns: Sequence[str] | None = None,
    git: bool = True,
    config: bool | None = None,
) -> Repo:
    """A repository in `root` (created): `.git/` unless `git=False`, a config when `patterns`
    is given (or `config=True`: `$schema` only), then `files`."""
    root.mkdir(parents=True, exist_ok=True)
    if git:
        (root / ".git").mkdir(exist_ok=True)
    repo = Repo(root)
    if patterns is not None or config:
        repo.config(patterns)
    write_tree(root, files or {})
    return repo


@pytest.fixture(scope="session")
def build_repo() -> Callable[..., Repo]:
    """`build_repo(root, files, patterns=..., git=...)`, for module- or session-scoped repos."""
    return build_repo_at


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., Repo]:
    """`make_repo({"eval.yaml": "...", "docs/a.md": "..."}, patterns=[...], git=True)`."""
    counter = [0]

    def make(files: Mapping[str, Any] | None = None, *, name: str | None = None, **kw: Any) -> Repo:
        counter[0] += 1
        return build_repo_at(tmp_path / (name or f"repo{counter[0]}"), files, **kw)

    return make


@pytest.fixture
def repo(make_repo: Callable[..., Repo]) -> Repo:
    """An empty eval repository with `.git/` and no config."""
    return make_repo()


# git for test repositories: no user or system config, a fixed author
GIT_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}
