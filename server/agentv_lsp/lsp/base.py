"""What the features and each format's editor side may ask of the language server, typed.

`ServerBase` declares the server's state and services (its body is only signatures); the one
server, `server.AgentVLanguageServer`, implements them. Features and `lsp/v2`, `lsp/v4` take
the server as a `ServerBase`, so none of them imports `server.py`, and `server.py` imports the
features to register them without an import circle. Beside it the small types the features,
the registry (`editor.py`) and the formats' editor sides share: `DocumentModel`, `Shown`,
`WorkspaceSymbol`, `MigrationRequest`, and `guard`, which every handler is wrapped in.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, TypeVar

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from agentv_lsp.checks.options import CheckOptions
from agentv_lsp.engine.budget import Budget, CheckStopped
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.runtime import RuntimeChoice
from agentv_lsp.lsp.convert import JsonDict
from agentv_lsp.lsp.document import Edit
from agentv_lsp.lsp.lifecycle import Lifecycle
from agentv_lsp.lsp.publication import Placed
from agentv_lsp.lsp.settings import Settings

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


class DocumentModel(Protocol):
    """One version of an open document as its format read it (a v2 `FileModel`, a 4.x
    `V4Model`): what a feature reads of it before handing it back to its format."""

    @property
    def path(self) -> str: ...

    @property
    def kind(self) -> str | None: ...  # "eval", "targets", "config", "cases"; None: not an AgentV file

    @property
    def agentv(self) -> bool: ...  # whether the server answers for this document at all


@dataclass(frozen=True, slots=True)
class Shown:
    """The encoded diagnostics a publication shows, and how many the file has."""

    encoded: list[str]
    total: int


class WorkspaceSymbol(NamedTuple):
    """A test (or case) found in a file, where it is written: `workspace/symbol`, `agentv/tests`."""

    id: str
    file: str  # where the test is written (absolute)
    line: int  # 0-based line of its `id`


@dataclass(frozen=True, slots=True)
class MigrationRequest:
    """One document version to migrate to the newer format, and where it is read from."""

    uri: str
    version: int | None
    text: str
    repo_root: str
    cwd: str
    fs: FileSystem


class ServerBase(LanguageServer):
    """The server's state and services as features and formats see them (implemented by
    `server.AgentVLanguageServer`; the bodies here are only signatures)."""

    settings: Settings
    fs: FileSystem
    generation: int  # bumped whenever what a check reads may have changed
    supports_pull: bool
    encoding: str
    pending: dict[str, asyncio.Task[Any]]
    budgets: dict[str, Budget]
    published: set[str]
    file_listeners: list[Callable[[list[str]], None]]
    document_listeners: list[Callable[[str], None]]
    close_listeners: list[Callable[[str], None]]
    lifecycle: Lifecycle

    def warn_once(self, problems: Iterable[str]) -> None:
        raise NotImplementedError

    def apply_settings(self, raw: Any) -> bool:
        raise NotImplementedError

    def reset_files(self) -> None:
        raise NotImplementedError

    def invalidate(self, paths: Iterable[str]) -> None:
        raise NotImplementedError

    def workspace_roots(self) -> list[str]:
        raise NotImplementedError

    def context_for(self, path: str) -> tuple[str, str]:
        raise NotImplementedError

    def options_for(self, path: str) -> CheckOptions:
        raise NotImplementedError

    def log(self, message: str, kind: lsp.MessageType = lsp.MessageType.Log) -> None:
        raise NotImplementedError

    def is_open(self, uri: str) -> bool:
        raise NotImplementedError

    def document_changed(self, uri: str) -> None:
        raise NotImplementedError

    def runtime_of(
        self, uri: str, path: str, text: str, repo_root: str, edit: tuple[str, Edit] | None = None
    ) -> RuntimeChoice:
        raise NotImplementedError

    async def model(self, uri: str) -> DocumentModel | None:
        raise NotImplementedError

    def document_lines(self, uri: str) -> list[str] | None:
        raise NotImplementedError

    def forget(self, uri: str) -> None:
        raise NotImplementedError

    def stop_check(self, uri: str) -> None:
        raise NotImplementedError

    async def run_check(
        self,
        uri: str,
        version: int | None,
        over_budget: Callable[[CheckStopped], T],
        work: Callable[..., T],
        *args: Any,
    ) -> T | None:
        raise NotImplementedError

    def incomplete_json(self, path: str, stop: CheckStopped) -> list[JsonDict]:
        raise NotImplementedError

    def publish_incomplete(self, uri: str, version: int | None, stop: CheckStopped) -> None:
        raise NotImplementedError

    def capped(self, uri: str, diagnostics: list[JsonDict]) -> list[JsonDict]:
        raise NotImplementedError

    def shown(self, uri: str, parts: list[Placed]) -> Shown:
        raise NotImplementedError

    def publish(self, uri: str, version: int | None, shown: Shown) -> None:
        raise NotImplementedError


def guard(fallback: Any = None) -> Callable[[F], F]:
    """Run a handler; on an exception log it (one line, then its traceback, in one error
    message) and answer `fallback`: one bad document or request never takes the server down,
    and what failed where can still be read in the editor's log."""

    def failed(ls: ServerBase, name: str, exc: Exception) -> None:
        trace = "".join(traceback.format_exception(exc)).rstrip()
        ls.log(f"agentv-lsp: {name} failed: {type(exc).__name__}: {exc}\n{trace}", lsp.MessageType.Error)

    def wrap(handler: F) -> F:
        name = handler.__name__
        if inspect.iscoroutinefunction(handler):

            @functools.wraps(handler)
            async def run_async(ls: ServerBase, *args: Any) -> Any:
                try:
                    return await handler(ls, *args)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    failed(ls, name, exc)
                    return fallback

            return run_async  # type: ignore[return-value]

        @functools.wraps(handler)
        def run(ls: ServerBase, *args: Any) -> Any:
            try:
                return handler(ls, *args)
            except Exception as exc:
                failed(ls, name, exc)
                return fallback

        return run  # type: ignore[return-value]

    return wrap
