"""Fixtures for the VS Code end-to-end test: code-server (from npm) + the packaged .vsix + Chromium.

Environment knobs (all optional):
  CODE_SERVER            path of the code-server binary
                         (default: $AGENTV_E2E_CACHE/code-server/node_modules/.bin/code-server)
  AGENTV_E2E_CACHE       cache dir (default: ~/.cache/agentv-lsp-e2e)
  AGENTV_E2E_INSTALL=1   run tests/e2e/install_code_server.sh when code-server is missing
  AGENTV_VSIX            a pre-built .vsix (default: build one with `npm run package` in vscode-client/)
  AGENTV_E2E_PYTHON      interpreter the extension runs the server with (default: sys.executable)
  AGENTV_E2E_SERVER_COMMAND  JSON array; sets agentv.server.command instead of pythonPath (e.g. a stub)
  CHROMIUM               browser binary (default: /usr/bin/chromium)
  CI                     when set, missing chromium or code-server FAILS the test instead of skipping
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CLIENT_DIR = REPO / "vscode-client"
CACHE = Path(os.environ.get("AGENTV_E2E_CACHE", Path.home() / ".cache" / "agentv-lsp-e2e"))
CODE_SERVER = Path(
    os.environ.get("CODE_SERVER", CACHE / "code-server" / "node_modules" / ".bin" / "code-server")
)
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
IN_CI = bool(os.environ.get("CI"))


def missing(reason: str) -> None:
    """In CI a missing tool is a failure (a broken install must not look green); locally a skip."""
    if IN_CI:
        pytest.fail(f"CI is set and {reason}", pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(cmd: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, timeout=timeout, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(
            f"{' '.join(cmd)} failed with {proc.returncode}\n--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}"
        )
    return proc.stdout


@pytest.fixture(scope="session")
def chromium() -> str:
    if not os.path.exists(CHROMIUM):
        missing(f"chromium is not installed at {CHROMIUM} (apt-get install -y chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing("the playwright Python package is not installed (pip install playwright==1.65.2)")
    return CHROMIUM


@pytest.fixture(scope="session")
def code_server_bin() -> Path:
    if not CODE_SERVER.exists() and os.environ.get("AGENTV_E2E_INSTALL") == "1":
        script = Path(__file__).resolve().parent / "install_code_server.sh"
        run(["bash", str(script), str(CODE_SERVER.parents[2])], timeout=900)
    if not CODE_SERVER.exists():
        missing(
            f"code-server is not installed at {CODE_SERVER} "
            f"(run tests/e2e/install_code_server.sh {CACHE / 'code-server'}, or set CODE_SERVER)"
        )
    return CODE_SERVER


@pytest.fixture(scope="session")
def vsix() -> Path:
    given = os.environ.get("AGENTV_VSIX")
    if given:
        p = Path(given)
        if not p.exists():
            pytest.fail(f"AGENTV_VSIX={given} does not exist", pytrace=False)
        return p
    npm = shutil.which("npm")
    if not npm:
        missing("npm is not installed (needed to build the extension)")
    assert npm
    if not (CLIENT_DIR / "node_modules").exists():
        run([npm, "ci", "--no-audit", "--no-fund"], cwd=CLIENT_DIR, timeout=600)
    run([npm, "run", "package"], cwd=CLIENT_DIR, timeout=600)
    return CLIENT_DIR / "agentv-lsp.vsix"


STANDIN_DIR = Path(__file__).resolve().parent / "yaml_standin"


def yls_bin() -> Path | None:
    """yaml-language-server's launcher (npm install yaml-language-server@1.25.0 in $AGENTV_E2E_CACHE/yls)."""
    found = CACHE / "yls" / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"
    return found if found.is_file() else None


@pytest.fixture(scope="session")
def yaml_standin(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path] | None:
    """(the stand-in for Red Hat's YAML extension as a .vsix, yaml-language-server's launcher), or
    None when yaml-language-server is not installed. Built from tests/e2e/yaml_standin with the
    extension's own esbuild, vscode-languageclient and vsce (vscode-client/node_modules)."""
    server = yls_bin()
    modules = CLIENT_DIR / "node_modules"
    if server is None or not (modules / ".bin" / "esbuild").exists():
        return None
    build = tmp_path_factory.mktemp("yaml-standin")
    shutil.copy(STANDIN_DIR / "package.json", build / "package.json")
    (build / "LICENSE").write_text("MIT\n")
    run(
        [
            str(modules / ".bin" / "esbuild"),
            str(STANDIN_DIR / "extension.ts"),
            "--bundle",
            "--platform=node",
            "--format=cjs",
            "--external:vscode",
            f"--outfile={build / 'extension.js'}",
        ],
        cwd=CLIENT_DIR,
        env={**os.environ, "NODE_PATH": str(modules)},  # vscode-languageclient from the extension's
        timeout=120,
    )
    vsce = modules / ".bin" / "vsce"
    run(
        [str(vsce), "package", "--no-dependencies", "--allow-missing-repository", "-o", "standin.vsix"],
        cwd=build,
        timeout=300,
    )
    return build / "standin.vsix", server


@dataclass
class CodeServer:
    url: str
    workspace: Path
    data_dir: Path
    env: dict[str, str]
    started_at: float
    """time.monotonic() just before `code-server --install-extension` ran (cold start origin)."""
    ready_at: float

    def agentv_log(self) -> str:
        """The extension's own output channel (AgentV), as written by the extension host."""
        return "\n".join(
            p.read_text(errors="replace") for p in sorted(self.data_dir.glob("logs/**/AgentV.log"))
        )

    def exthost_logs(self, tail: int = 6000) -> str:
        out = []
        for log in sorted(self.data_dir.glob("logs/**/exthost*/**/*.log")):
            text = log.read_text(errors="replace")
            if text.strip():
                out.append(f"--- {log.relative_to(self.data_dir)}\n{text[-tail:]}")
        return "\n".join(out)


def _user_settings(server_settings: dict[str, object]) -> dict[str, object]:
    return {
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": False,
        "workbench.enableExperiments": False,
        "security.workspace.trust.enabled": False,
        "extensions.autoCheckUpdates": False,
        "extensions.autoUpdate": False,
        "extensions.ignoreRecommendations": True,
        "telemetry.telemetryLevel": "off",
        "update.mode": "none",
        "git.enabled": False,
        "editor.hover.delay": 100,
        "editor.minimap.enabled": False,
        "window.commandCenter": False,
        "workbench.colorTheme": "Default Dark Modern",
        **server_settings,
    }


def server_settings() -> dict[str, object]:
    command = os.environ.get("AGENTV_E2E_SERVER_COMMAND")
    if command:
        return {"agentv.server.command": json.loads(command)}
    return {"agentv.server.pythonPath": os.environ.get("AGENTV_E2E_PYTHON", sys.executable)}


def start_code_server(
    tmp: Path,
    bin_path: Path,
    vsix_path: Path,
    workspace: Path,
    workspace_settings: dict[str, object] | None = None,
    extra_env: dict[str, str] | None = None,
    extra_vsix: tuple[Path, ...] = (),
    trusted: bool = True,
    user_settings: dict[str, object] | None = None,
) -> tuple[CodeServer, subprocess.Popen[bytes]]:
    home, data, ext = tmp / "home", tmp / "data", tmp / "ext"
    for d in (home, data / "User", ext):
        d.mkdir(parents=True, exist_ok=True)
    user = _user_settings(user_settings or {})
    if not trusted:  # Restricted Mode: trust is asked for, and the folder opens untrusted
        user.update(
            {
                "security.workspace.trust.enabled": True,
                "security.workspace.trust.startupPrompt": "never",
                "security.workspace.trust.emptyWindow": False,
            }
        )
    (data / "User" / "settings.json").write_text(json.dumps(user, indent=2))
    # The interpreter goes into the *workspace* settings, as a user would do it.
    vscode_dir = workspace / ".vscode"
    vscode_dir.mkdir(exist_ok=True)
    ws_settings = server_settings() if workspace_settings is None else workspace_settings
    (vscode_dir / "settings.json").write_text(json.dumps(ws_settings, indent=2))
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "TMPDIR": str(tmp),
        **(extra_env or {}),
    }
    env.pop("VSCODE_IPC_HOOK_CLI", None)
    common = ["--user-data-dir", str(data), "--extensions-dir", str(ext)]
    started = time.monotonic()
    for path in (vsix_path, *extra_vsix):
        run([str(bin_path), *common, "--install-extension", str(path)], env=env, timeout=120)
    port = free_port()
    log = open(tmp / "code-server.log", "wb")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen(
        [
            str(bin_path),
            *common,
            "--bind-addr",
            f"127.0.0.1:{port}",
            "--auth",
            "none",
            "--disable-telemetry",
            "--disable-update-check",
            *(["--disable-workspace-trust"] if trusted else []),
            str(workspace),
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    log.close()
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                stop_process_group(proc)
                raise RuntimeError(
                    "code-server did not come up:\n"
                    + (tmp / "code-server.log").read_text(errors="replace")[-4000:]
                ) from None
            time.sleep(0.2)
    cs = CodeServer(
        url=f"http://127.0.0.1:{port}/?folder={workspace}",
        workspace=workspace,
        data_dir=data,
        env=env,
        started_at=started,
        ready_at=time.monotonic(),
    )
    return cs, proc


def stop_process_group(proc: subprocess.Popen[bytes]) -> None:
    """Ends code-server and everything it started (extension host, the Python server)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    else:
        # The wrapper exited; its children may not have.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture
def code_server_factory(tmp_path: Path, chromium: str, code_server_bin: Path, vsix: Path) -> Iterator[object]:
    procs: list[subprocess.Popen[bytes]] = []
    # Short: chromium and VS Code put unix sockets in TMPDIR (108-byte path limit).
    short = Path(tempfile.mkdtemp(prefix="agentv-e2e-", dir="/tmp" if os.path.isdir("/tmp") else None))

    def factory(
        workspace: Path,
        settings: dict[str, object] | None = None,
        env: dict[str, str] | None = None,
        extra_vsix: tuple[Path, ...] = (),
        trusted: bool = True,
        user_settings: dict[str, object] | None = None,
    ) -> CodeServer:
        """settings: the workspace's .vscode/settings.json (default: the server interpreter, see server_settings);
        extra_vsix: other extensions installed beside ours; trusted False: the folder opens in
        Restricted Mode (then only `user_settings` choose the server)."""
        cs, proc = start_code_server(
            short / f"cs{len(procs)}",
            code_server_bin,
            vsix,
            workspace,
            settings,
            env,
            extra_vsix,
            trusted=trusted,
            user_settings=user_settings,
        )
        procs.append(proc)
        return cs

    try:
        yield factory
    finally:
        for p in procs:
            stop_process_group(p)
        keep = tmp_path / "code-server-logs"
        for d in short.glob("cs*/data/logs"):
            shutil.copytree(d, keep / d.parent.parent.name, dirs_exist_ok=True)
        shutil.rmtree(short, ignore_errors=True)
