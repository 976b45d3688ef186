"""The server bundled in the VS Code extension runs on every CPython minor version it ships.

`vscode-client/scripts/bundle-python.mjs` writes bundled/libs/common (pure Python) and one folder of
compiled dependencies per minor (cp311, cp312, ...); the extension runs `python3.X -m agentv_lsp serve`
with PYTHONPATH = common + cp3X (vscode-client/src/common/bundle.ts). Here each interpreter of 3.11,
3.12 and 3.13 this machine has (on PATH or in ~/.pyenv/versions) imports the bundle in isolation and
runs `agentv_lsp check` from it.

The bundle built in vscode-client/bundled/libs is reused when it matches this checkout (CI builds it
with `npm run package` first); otherwise one is built in a temporary folder, which needs node, the
network and about 30 s: in CI or with AGENTV_SLOW=1 (as tests/unit/test_precommit.py).
"""

from __future__ import annotations

import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
CLIENT = REPO / "vscode-client"
BUILT = CLIENT / "bundled" / "libs"
MINORS = ("3.11", "3.12", "3.13")
SLOW = bool(os.environ.get("CI") or os.environ.get("AGENTV_SLOW"))

# An invalid role is an AgentV error (4.42.4 accepts system, user, assistant); the good file is clean.
BAD_V4 = "tests:\n  - id: t1\n    criteria: ok\n    input:\n      - role: usr\n        content: hi\n"
GOOD_V4 = "description: bundle smoke test\ntests:\n  - id: t1\n    criteria: ok\n    input: hi\n"


def _pins() -> dict[str, str]:
    pins = {}
    for line in (CLIENT / "bundle-constraints.txt").read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line.strip())
        if m:
            pins[_norm(m.group(1))] = m.group(2)
    return pins


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _source_files(root: Path) -> dict[str, Path]:
    return {
        p.relative_to(root).as_posix(): p
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def _stale(libs: Path) -> str | None:
    """Why the bundle in `libs` is not this checkout's, or None when it is."""
    try:
        manifest = json.loads((libs / ".agentv-bundle.json").read_text())
    except (OSError, ValueError):
        return "not built"
    if not isinstance(manifest, dict) or manifest.get("format") != 2:
        return "an old single-interpreter bundle"
    ours = _source_files(REPO / "server" / "agentv_lsp")
    # pyproject.toml's force-include: schema/ ships as agentv_lsp/schema
    ours.update({f"schema/{k}": v for k, v in _source_files(REPO / "schema").items()})
    bundled = _source_files(libs / str(manifest.get("common")) / "agentv_lsp")
    if ours.keys() != bundled.keys():
        return "older than server/agentv_lsp (files added or removed)"
    changed = [k for k in ours if not filecmp.cmp(ours[k], bundled[k], shallow=False)]
    if changed:
        return f"older than server/agentv_lsp ({changed[0]} changed)"
    versions = {_norm(k): v for k, v in manifest.get("pure", {}).items()}
    for per_minor in manifest.get("compiled", {}).values():
        versions.update({_norm(k): v for k, v in per_minor.items()})
    differ = [f"{k} {versions.get(k)} != {v}" for k, v in _pins().items() if versions.get(k) != v]
    if differ:
        return f"built from other pins than bundle-constraints.txt ({', '.join(differ)})"
    return None


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    why = _stale(BUILT)
    libs = BUILT
    if why is not None:
        if not SLOW:
            pytest.skip(
                f"vscode-client/bundled/libs is {why}; building one takes ~30 s and the network "
                "(CI or AGENTV_SLOW=1, or run `npm run bundle-python` in vscode-client first)"
            )
        node = shutil.which("node")
        if node is None:
            pytest.skip(
                "node is not installed (the bundle is built by vscode-client/scripts/bundle-python.mjs)"
            )
        libs = tmp_path_factory.mktemp("bundle") / "libs"
        env = {**os.environ, "AGENTV_BUNDLE_OUT": str(libs), "AGENTV_BUNDLE_PYTHON": sys.executable}
        built = subprocess.run(
            [node, "scripts/bundle-python.mjs"],
            cwd=CLIENT,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert built.returncode == 0, f"bundle-python.mjs failed:\n{built.stdout}\n{built.stderr}"
    manifest = json.loads((libs / ".agentv-bundle.json").read_text())
    return libs, manifest


def _interpreter(minor: str) -> str | None:
    """A working CPython `minor` (pyenv's shims are on PATH for versions they cannot run: ask each)."""
    candidates = [shutil.which(f"python{minor}")]
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    if pyenv.is_dir():
        candidates += [
            str(p / "bin" / f"python{minor}") for p in sorted(pyenv.glob(f"{minor}.*"), reverse=True)
        ]
    for c in candidates:
        if c is None or not Path(c).exists():
            continue
        try:
            r = subprocess.run(
                [c, "-I", "-c", "import sys; print(sys.implementation.name, '%d.%d' % sys.version_info[:2])"],
                capture_output=True,
                text=True,
                timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if r.returncode == 0 and r.stdout.split() == ["cpython", minor]:
            return c
    return None


def _bundle_env(libs: Path, manifest: dict[str, Any], minor: str) -> dict[str, str]:
    """What the extension gives the server process (src/common/python.ts, bundle.ts)."""
    pythons = manifest["pythons"]
    assert isinstance(pythons, dict)
    path = os.pathsep.join([str(libs / str(manifest["common"])), str(libs / pythons[minor])])
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "SYSTEMROOT", "TMPDIR", "LANG")}
    # no __pycache__ written into a bundle that may be packaged next
    return {
        **keep,
        "PYTHONPATH": path,
        "PYTHONNOUSERSITE": "1",
        "PYTHONSAFEPATH": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def test_manifest_lists_the_supported_minors_for_this_platform(
    bundle: tuple[Path, dict[str, Any]],
) -> None:
    libs, manifest = bundle
    pythons = manifest["pythons"]
    assert isinstance(pythons, dict)
    assert set(MINORS) <= set(pythons), pythons
    compiled_suffixes = (".so", ".pyd", ".dylib")
    for minor, folder in pythons.items():
        assert folder == "cp" + minor.replace(".", "")
        # compiled distributions only, each built for this minor: pure ones live once in common
        infos = sorted((libs / folder).glob("*.dist-info"))
        assert infos, folder
        for info in infos:
            tags = re.findall(r"^Tag: (\S+)$", (info / "WHEEL").read_text(), re.M)
            assert tags and all(t.startswith(f"{folder}-{folder}-") for t in tags), (info.name, tags)
    common = libs / str(manifest["common"])
    assert not [p for p in common.rglob("*") if p.suffix in compiled_suffixes]
    assert {"agentv_lsp", "pygls", "jsonschema", "referencing"} <= {p.name for p in common.iterdir()}
    node_platform = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(sys.platform, sys.platform)
    assert manifest["node"]["platform"] == node_platform
    assert not (common / "yaml").exists()  # PyYAML's C loader sits inside its package: all of it per minor
    assert not (common / "bin").exists()


@pytest.mark.parametrize("minor", MINORS)
def test_bundle_imports_with_its_own_compiled_parts(minor: str, bundle: tuple[Path, dict[str, Any]]) -> None:
    python = _interpreter(minor)
    if python is None:
        pytest.skip(f"no CPython {minor} on PATH or in ~/.pyenv/versions")
    libs, manifest = bundle
    env = _bundle_env(libs, manifest, minor)
    # -I ignores PYTHONPATH: put the bundle first by hand, exactly as PYTHONPATH would
    code = (
        "import json, sys; sys.path[:0] = sys.argv[1].split(sys.argv[2]);"
        "import agentv_lsp, pygls, jsonschema, rpds, yaml;"
        "from agentv_lsp.yamlpos import parse_yaml;"
        "jsonschema.Draft202012Validator({'type': 'object'}).validate({});"
        "print(json.dumps({'agentv_lsp': agentv_lsp.__file__, 'rpds': rpds.__file__, 'yaml': yaml.__file__,"
        " 'libyaml': yaml.__with_libyaml__, 'c_loader': hasattr(yaml, 'CSafeLoader'),"
        " 'parsed': parse_yaml('a: [1, yes]').value}))"
    )
    r = subprocess.run(
        [python, "-I", "-B", "-c", code, env["PYTHONPATH"], os.pathsep],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    common = libs / str(manifest["common"])
    compiled = libs / ("cp" + minor.replace(".", ""))
    assert Path(got["agentv_lsp"]).is_relative_to(common)
    assert Path(got["rpds"]).is_relative_to(compiled)
    assert Path(got["yaml"]).is_relative_to(compiled)
    assert got["libyaml"] is True and got["c_loader"] is True
    assert got["parsed"] == {"a": [1, "yes"]}  # YAML 1.2: `yes` stays a string


@pytest.mark.parametrize("minor", MINORS)
def test_bundled_check_runs_and_matches_the_source_checkout(
    minor: str, bundle: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    python = _interpreter(minor)
    if python is None:
        pytest.skip(f"no CPython {minor} on PATH or in ~/.pyenv/versions")
    libs, manifest = bundle
    work = tmp_path / "repo"
    (work / ".git").mkdir(parents=True)  # a repository root: file references are checked against it
    (work / "bad.eval.yaml").write_text(BAD_V4)
    (work / "good.eval.yaml").write_text(GOOD_V4)
    env = _bundle_env(libs, manifest, minor)

    def check(interpreter: str, env: dict[str, str], *files: str) -> tuple[int, dict[str, Any]]:
        r = subprocess.run(
            [
                interpreter,
                "-m",
                "agentv_lsp",
                "check",
                *files,
                "--format",
                "json",
                "--agentv",
                "4",
                "--no-progress",
            ],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode in (0, 1), r.stderr
        return r.returncode, json.loads(r.stdout)

    code, out = check(python, env, "good.eval.yaml")
    assert (code, out["diagnostics"]) == (0, [])
    code, out = check(python, env, "bad.eval.yaml", "good.eval.yaml")
    assert code == 1
    errors = [d for d in out["diagnostics"] if d["severity"] == "error"]
    assert [(d["file"], d["range"]["start"]["line"], d["path"]) for d in errors] == [
        ("bad.eval.yaml", 4, "tests[0].input[0].role")
    ]
    # the same answer as the checkout's own code run by this test's interpreter
    source_env = {**env, "PYTHONPATH": str(REPO / "server")}
    source_env.pop("PYTHONNOUSERSITE")
    assert check(sys.executable, source_env, "bad.eval.yaml", "good.eval.yaml") == (code, out)


@pytest.mark.parametrize("minor", MINORS)
def test_bundled_server_answers_initialize(minor: str, bundle: tuple[Path, dict[str, Any]]) -> None:
    """`python3.X -m agentv_lsp serve` as the extension starts it: LSP initialize, shutdown, exit."""
    python = _interpreter(minor)
    if python is None:
        pytest.skip(f"no CPython {minor} on PATH or in ~/.pyenv/versions")
    libs, manifest = bundle
    proc = subprocess.Popen(
        [python, "-m", "agentv_lsp", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_bundle_env(libs, manifest, minor),
        cwd=libs,  # the extension's folder, never the workspace
    )
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None and stdout is not None

    def send(message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stdin.flush()

    def receive() -> dict[str, Any]:
        length = 0
        while (line := stdout.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        assert length, proc.stderr.read().decode() if proc.stderr else "no answer"
        message: dict[str, Any] = json.loads(stdout.read(length))
        return message

    try:
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"processId": None, "capabilities": {}},
            }
        )
        answer = receive()
        result = answer.get("result")
        assert isinstance(result, dict), answer
        assert result["serverInfo"]["name"] == "agentv-lsp"
        assert result["capabilities"].get("hoverProvider")
        send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        assert receive().get("id") == 2
        send({"jsonrpc": "2.0", "method": "exit"})
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
