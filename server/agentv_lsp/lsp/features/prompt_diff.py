"""The custom request `agentv/renderedPrompt` (`{"uri", "testId", "side": "head" | "buffer"}` ->
`{"text", "label"}`): one test's rendered prompt (every field `agentv-lsp diff` compares, with its
token counts) at HEAD or as the unsaved buffer makes it. `text` holds the prompt alone, the same
on both sides where the prompt is the same; `label` names the side ("HEAD (1a2b3c4)",
"unsaved buffer") for the editor's tab title. The VS Code client serves both as read-only
virtual documents and opens its diff editor on them ("Compare prompt with HEAD").

The URI comes from the client, which forwards any `agentv-prompt:` link's query: it is judged
before anything is read or git runs. Only a `file:` URI of an open document or of a file in a
workspace folder is answered; in an untrusted workspace nothing outside the workspace folders,
and git runs only in a repository whose root is inside them. The file on disk (a document not
open) is read through the server's `FileSystem`: regular files only (a FIFO or a device is
refused at once, never waited on), at most `maxFileSizeKb`. The work runs in a small pool of
its own, with a bound on requests waiting, so no number of these requests holds the threads
hover and diagnostics run in."""

from __future__ import annotations

import asyncio
import os
import re
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any
from urllib.parse import urlparse

from lsprotocol import types as lsp

from agentv_lsp.diff.git import GitError, repository_top
from agentv_lsp.diff.single import buffer_prompt, revision_prompt
from agentv_lsp.engine.files import FileReadError
from agentv_lsp.formats.runtime import parse_requested
from agentv_lsp.lsp.base import ServerBase
from agentv_lsp.lsp.convert import uri_to_path

RENDERED_PROMPT = "agentv/renderedPrompt"
# The code lens "Compare prompt with HEAD" (listed after each preview lens, `lsp/listing.py`)
# runs this client command with the preview lens's arguments (`[{"uri", "caseId"}]`); the VS
# Code extension registers it.
COMPARE_COMMAND = "agentv.comparePromptWithHead"
BUFFER_LABEL = "unsaved buffer"
WORKERS = 2  # threads of this request's own pool
MAX_IN_FLIGHT = 8  # requests running or waiting; more are answered with an error at once

_pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="agentv-rendered-prompt")
_in_flight = 0
_in_flight_lock = threading.Lock()
# The heading `diff.single.render_test` writes: `# id (file, side)`, or `# side: what is missing`.
_SIDE = r"(?:HEAD \([0-9a-f]+\)|" + re.escape(BUFFER_LABEL) + ")"
_HEADING = re.compile(r"^(# .*), (" + _SIDE + r")\)$")
_MISSING = re.compile(r"^# (" + _SIDE + r"): ")


def compare_lens(resolved: lsp.CodeLens) -> lsp.CodeLens:
    command = resolved.command
    if command is not None and command.arguments:
        resolved.command = lsp.Command(
            title="⇄ Compare prompt with HEAD", command=COMPARE_COMMAND, arguments=command.arguments
        )
    else:
        resolved.command = lsp.Command(title="", command="")
    return resolved


def split_label(rendered: str) -> dict[str, str]:
    """`{"text", "label"}`: the side's name taken out of the first line (else the two sides of an
    unchanged prompt differ on line 1)."""
    first, newline, rest = rendered.partition("\n")
    heading = _HEADING.match(first)
    if heading is not None:
        return {"text": f"{heading.group(1)})" + newline + rest, "label": heading.group(2)}
    missing = _MISSING.match(first)
    if missing is not None:
        return {"text": "# " + rendered[missing.end() :], "label": missing.group(1)}
    return {"text": rendered, "label": ""}


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def refusal(ls: ServerBase, uri: str, path: str) -> str | None:
    """Why this URI is not answered (None: it may be): judged on the real path, before any read."""
    if urlparse(uri).scheme != "file":
        return f"not a file URI: {uri!r}"
    if not ls.fs.is_allowed(path):
        return f"{path} is outside the workspace folders (untrusted workspace): not read"
    if uri in ls.workspace.text_documents:
        return None
    # by its name (links followed only by the read: trusted, or already judged above)
    named = os.path.normpath(path)
    if not any(_within(named, os.path.normpath(root)) for root in ls.workspace_roots()):
        return f"{path} is neither an open document nor in a workspace folder: not read"
    return None


def rendered_prompt(ls: ServerBase, params: Any) -> dict[str, Any]:
    uri = _get(params, "uri")
    test_id = _get(params, "testId")
    side = _get(params, "side") or "buffer"
    if not isinstance(uri, str) or not isinstance(test_id, str) or side not in ("head", "buffer"):
        return {"error": 'expected {"uri", "testId", "side": "head" | "buffer"}'}
    path = uri_to_path(uri)
    refused = refusal(ls, uri, path)
    if refused is not None:
        return {"error": refused}
    document = ls.workspace.text_documents.get(uri)
    try:
        # a document not open is read as any file is (regular, bounded), also for the head side:
        # what is compared is a file of the workspace
        text = document.source if document is not None else _read_file(ls, path)
        repo = ls.context_for(path)[0]
        if ls.fs.allowed_roots is not None and not _repository_inside(ls, repo):
            return {
                "error": f"{path}: its git repository is outside the workspace folders (untrusted workspace)"
            }
        requested = parse_requested(ls.settings.runtime)
        if side == "head":
            return split_label(revision_prompt(repo, path, test_id, "HEAD", requested))
        return split_label(buffer_prompt(repo, path, text, test_id, requested))
    except (GitError, OSError, FileReadError) as exc:
        return {"error": str(exc)}


def _repository_inside(ls: ServerBase, repo: str) -> bool:
    """The folder holding `.git` inside the workspace folders (judged before git runs), and the
    root git finds from there too (git passes over an invalid `.git` and looks further up)."""
    return ls.fs.is_allowed(repo) and ls.fs.is_allowed(os.path.realpath(repository_top(repo)))


def _read_file(ls: ServerBase, path: str) -> str:
    read = ls.fs.read(path)
    if read.truncated:
        raise FileReadError(
            f"{path} is larger than maxFileSizeKb ({ls.fs.max_bytes // 1024:,} KiB): not read", code="EFBIG"
        )
    return read.text


def _get(params: Any, name: str) -> Any:
    return params.get(name) if isinstance(params, dict) else getattr(params, name, None)


def _release(_done: Future[dict[str, Any]]) -> None:
    """A request is no longer under way: its thread is done, or it was cancelled before starting
    (a cancelled request's running thread keeps its place until it ends)."""
    global _in_flight
    with _in_flight_lock:
        _in_flight -= 1


def register(server: ServerBase) -> None:
    @server.feature(RENDERED_PROMPT)
    async def rendered_prompt_request(ls: ServerBase, params: Any) -> dict[str, Any]:
        global _in_flight
        with _in_flight_lock:
            if _in_flight >= MAX_IN_FLIGHT:
                return {"error": f"busy: {MAX_IN_FLIGHT} prompt comparisons are under way; try again"}
            _in_flight += 1
        future = _pool.submit(rendered_prompt, ls, params)
        future.add_done_callback(_release)
        return await asyncio.wrap_future(future)
