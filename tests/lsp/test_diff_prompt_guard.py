"""`agentv/renderedPrompt` meets URIs a link in a workspace file can send (issue 33, finding 1),
through the real protocol: the trust rule is judged before any read or git call, a FIFO or a
device is refused at once, a large file is not read whole, and requests that cannot be answered
never hold the threads hover and diagnostics need. `git` is a wrapper that notes where it ran."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.conftest import GIT_ENV
from tests.lsp.conftest import accept_registrations, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")

_GIT_DIR = tempfile.mkdtemp(prefix="agentv-git-wrapper-")
atexit.register(shutil.rmtree, _GIT_DIR, True)
GIT_LOG = Path(_GIT_DIR) / "calls.log"
_REAL_GIT = shutil.which("git") or "/usr/bin/git"
(Path(_GIT_DIR) / "git").write_text(
    f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{GIT_LOG}"\nexec "{_REAL_GIT}" "$@"\n'
)
os.chmod(Path(_GIT_DIR) / "git", 0o755)
SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "agentv_lsp", "serve"],
    server_env={**os.environ, "PATH": f"{_GIT_DIR}{os.pathsep}{os.environ.get('PATH', '')}"},
)

SUITE = "tests:\n  - id: greet\n    criteria: greets\n    input: Say hello\n"


def _git_repo(root: Path) -> Path:
    (root / "evals").mkdir(parents=True)
    (root / "evals" / "suite.eval.yaml").write_text(SUITE)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True)
    return root


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the workspace, a repository outside it), both git repositories."""
    base = tmp_path_factory.mktemp("guard")
    workspace, outside = _git_repo(base / "ws"), _git_repo(base / "outside")
    (workspace / "evals" / "out.eval.yaml").symlink_to(outside / "evals" / "suite.eval.yaml")
    for index in range(6):
        os.mkfifo(workspace / "evals" / f"pipe{index}.eval.yaml")
    (workspace / "evals" / "zero.eval.yaml").symlink_to("/dev/zero")
    with open(workspace / "evals" / "huge.eval.yaml", "wb") as handle:
        handle.truncate(256 * 1024 * 1024)  # sparse: no disk used
    return workspace, outside


def _release_fifo_readers(workspace: Path) -> None:
    """A reader blocked on a FIFO (a server that waits on one) gets end-of-file, so it can exit."""
    for pipe in (workspace / "evals").glob("*.eval.yaml"):
        if not pipe.is_fifo():
            continue
        with contextlib.suppress(OSError):  # ENXIO: no reader, nothing waits
            os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))


async def _session(client: LanguageClient, workspace: Path, trusted: bool) -> None:
    accept_registrations(client)
    await client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=workspace.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
            initialization_options={"settings": {"trustedWorkspace": trusted}},
        )
    )


@pytest_lsp.fixture(config=SERVER, scope="module")
async def untrusted(lsp_client: LanguageClient, folders: tuple[Path, Path]):  # type: ignore[no-untyped-def]
    await _session(lsp_client, folders[0], trusted=False)
    yield
    _release_fifo_readers(folders[0])
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER, scope="module")
async def trusted(lsp_client: LanguageClient, folders: tuple[Path, Path]):  # type: ignore[no-untyped-def]
    await _session(lsp_client, folders[0], trusted=True)
    yield
    _release_fifo_readers(folders[0])
    await lsp_client.shutdown_session()


async def rendered(
    client: LanguageClient, uri: str, side: str = "buffer", test_id: str = "greet"
) -> dict[str, Any]:
    result = await asyncio.wait_for(
        client.protocol.send_request_async(
            "agentv/renderedPrompt", {"uri": uri, "testId": test_id, "side": side}
        ),
        20,
    )
    if isinstance(result, dict):
        return result
    return {name: getattr(result, name) for name in ("text", "label", "error") if hasattr(result, name)}


def _git_calls() -> list[str]:
    return GIT_LOG.read_text().splitlines() if GIT_LOG.exists() else []


async def test_untrusted_refuses_a_uri_outside_the_workspace_before_git_runs(
    untrusted: LanguageClient, folders: tuple[Path, Path]
) -> None:
    workspace, outside = folders
    outside_uri = (outside / "evals" / "suite.eval.yaml").as_uri()
    linked_uri = (workspace / "evals" / "out.eval.yaml").as_uri()  # a link leading out
    for uri in (outside_uri, linked_uri):
        for side in ("head", "buffer"):
            answer = await rendered(untrusted, uri, side)
            assert "outside the workspace folders (untrusted workspace)" in answer.get("error", ""), answer
    # open in the editor or not, the file outside is not the workspace's
    open_doc(untrusted, outside / "evals" / "suite.eval.yaml")
    assert "error" in await rendered(untrusted, outside_uri, "head")
    assert not any(str(outside) in call for call in _git_calls()), _git_calls()
    # the wrapper does see git: the workspace's own file is compared with its HEAD
    inside = await rendered(untrusted, (workspace / "evals" / "suite.eval.yaml").as_uri(), "head")
    assert "Say hello" in inside["text"] and inside["label"].startswith("HEAD (")
    assert any(str(workspace) in call for call in _git_calls())


@pytest_lsp.fixture(config=SERVER, scope="module")
async def nested(lsp_client: LanguageClient, folders: tuple[Path, Path]):  # type: ignore[no-untyped-def]
    """Untrusted, with a workspace folder inside the other repository (no `.git` of its own)."""
    await _session(lsp_client, folders[1] / "evals", trusted=False)
    yield
    await lsp_client.shutdown_session()


async def test_untrusted_runs_no_git_in_a_repository_above_the_workspace_folder(
    nested: LanguageClient, folders: tuple[Path, Path]
) -> None:
    outside = folders[1]
    calls = len(_git_calls())
    uri = open_doc(nested, outside / "evals" / "suite.eval.yaml")
    answers = [await rendered(nested, uri, side) for side in ("head", "buffer")]
    assert not any(str(outside) in call for call in _git_calls()[calls:]), _git_calls()[calls:]
    for answer in answers:
        assert "its git repository is outside the workspace folders" in answer.get("error", ""), answer


async def test_a_file_outside_the_workspace_that_is_not_open_is_refused_when_trusted(
    trusted: LanguageClient, folders: tuple[Path, Path]
) -> None:
    outside = folders[1]
    answer = await rendered(trusted, (outside / "evals" / "suite.eval.yaml").as_uri(), "buffer")
    assert "neither an open document nor in a workspace folder" in answer["error"]
    for uri in ("file:///dev/zero", "file:///etc/passwd", "agentv-prompt:/x?y", "untitled:Untitled-1"):
        assert "error" in await rendered(trusted, uri), uri


async def test_fifos_answer_at_once_and_do_not_stop_hover_or_diagnostics(
    trusted: LanguageClient, folders: tuple[Path, Path]
) -> None:
    workspace = folders[0]
    suite = open_doc(trusted, workspace / "evals" / "suite.eval.yaml")
    pipes = [(workspace / "evals" / f"pipe{i}.eval.yaml").as_uri() for i in range(6)]
    started = asyncio.get_running_loop().time()
    answers = []
    for side in ("buffer", "head"):  # 6 at a time: more than MAX_IN_FLIGHT at once are told "busy"
        answers += await asyncio.gather(*(rendered(trusted, uri, side) for uri in pipes))
    assert all("not a regular file" in a.get("error", "") for a in answers), answers
    # and again, with hover and diagnostics asked for meanwhile
    waiting = [asyncio.ensure_future(rendered(trusted, uri)) for uri in pipes]
    hover = await asyncio.wait_for(
        trusted.text_document_hover_async(
            lsp.HoverParams(
                text_document=lsp.TextDocumentIdentifier(uri=suite),
                position=lsp.Position(line=1, character=8),
            )
        ),
        20,
    )
    report = await asyncio.wait_for(
        trusted.text_document_diagnostic_async(
            lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri=suite))
        ),
        20,
    )
    assert hover is not None and report is not None
    assert all("not a regular file" in a.get("error", "") for a in await asyncio.gather(*waiting))
    assert asyncio.get_running_loop().time() - started < 20


async def test_a_device_and_a_huge_file_are_not_read(
    trusted: LanguageClient, folders: tuple[Path, Path]
) -> None:
    workspace = folders[0]
    zero = await rendered(trusted, (workspace / "evals" / "zero.eval.yaml").as_uri())
    assert "not a regular file" in zero["error"]
    huge = await rendered(trusted, (workspace / "evals" / "huge.eval.yaml").as_uri())
    assert "larger than maxFileSizeKb" in huge["error"]
    server = trusted._server  # type: ignore[attr-defined]
    status = Path(f"/proc/{server.pid}/status").read_text()
    (peak,) = [int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")]
    assert peak < 200 * 1024, f"server peak RSS {peak} KiB"  # the 256 MiB file was not read whole


async def test_workspace_symbols_read_through_the_file_system(
    trusted: LanguageClient, folders: tuple[Path, Path]
) -> None:
    """The other read beside the FileSystem in `lsp/`: workspace symbols read eval files on disk.
    The folder listing (regular files only) is kept for a while: an eval file that became a FIFO
    since is refused by the read, never waited on."""
    swapped = folders[0] / "evals" / "swap.eval.yaml"
    swapped.write_text(SUITE.replace("greet", "swapped"))
    query = lsp.WorkspaceSymbolParams(query="e")
    first = await asyncio.wait_for(trusted.workspace_symbol_async(query), 20)
    assert "swapped" in [s.name for s in first or []]
    swapped.unlink()
    os.mkfifo(swapped)
    try:
        again = await asyncio.wait_for(trusted.workspace_symbol_async(query), 20)
    finally:
        _release_fifo_readers(folders[0])
    # the link leading out is followed: the workspace is trusted
    named = sorted((s.name, Path(s.location.uri).name) for s in again or [])  # type: ignore[union-attr]
    assert named == [("greet", "out.eval.yaml"), ("greet", "suite.eval.yaml")]


async def test_requests_under_way_are_bounded_and_a_cancelled_one_frees_its_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The handler itself, in process, with a comparison that waits until released: past
    MAX_IN_FLIGHT the answer is `busy` at once; one cancelled while waiting frees its place."""
    import threading

    from agentv_lsp.lsp.features import prompt_diff
    from agentv_lsp.lsp.server import create_server

    release = threading.Event()
    started: list[str] = []

    def slow(ls: Any, params: Any) -> dict[str, Any]:
        started.append(params["uri"])
        release.wait(20)
        return {"text": params["uri"], "label": ""}

    monkeypatch.setattr(prompt_diff, "rendered_prompt", slow)
    server = create_server()
    handler = server.protocol.fm.features[prompt_diff.RENDERED_PROMPT]
    try:
        under_way = [
            asyncio.ensure_future(handler({"uri": str(i)})) for i in range(prompt_diff.MAX_IN_FLIGHT)
        ]
        await asyncio.sleep(0.2)
        assert len(started) == prompt_diff.WORKERS  # the others wait in the pool, not in a shared thread
        assert "busy" in (await asyncio.wait_for(handler({"uri": "one more"}), 5))["error"]
        under_way[-1].cancel()  # still waiting in the pool: never runs
        await asyncio.sleep(0.1)
        later = asyncio.ensure_future(handler({"uri": "later"}))
        await asyncio.sleep(0.1)
        assert not later.done()  # accepted: under way, not answered busy
        release.set()
        answers = await asyncio.wait_for(asyncio.gather(*under_way[:-1], later), 20)
        assert [a["text"] for a in answers] == [*map(str, range(prompt_diff.MAX_IN_FLIGHT - 1)), "later"]
        assert prompt_diff._in_flight == 0 and str(prompt_diff.MAX_IN_FLIGHT - 1) not in started
    finally:
        release.set()
