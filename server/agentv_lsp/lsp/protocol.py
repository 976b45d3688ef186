"""JSON-RPC fixes on top of pygls' protocol.

- pygls 2 turns a request whose params do not fit the method's type into an exception
  raised while the message is being read, so the request is never answered and the editor
  waits forever. JSON-RPC 2.0 requires an answer: here such a request becomes an
  `InvalidParams` (-32602) error response naming the method.
- Features that answer with plain JSON skip pygls' cattrs pass over the whole result, which
  costs more than writing the JSON (0.23 s for 20,000 lenses). Typed objects inside a result
  are still unstructured one by one, with the same hooks. The largest answers (code lenses
  and the outline: megabytes at 10,000 tests) come as `RawJson`, written in a worker thread
  and kept per document version: their text is spliced into the response as it is, so the
  event loop only writes it (`json.dumps` of 30,000 lenses there blocked every other request
  for a quarter of a second).
- A `$/cancelRequest` for a request already answered is normal (the editor cancels hovers and
  code lenses it no longer needs); pygls logs it as a warning on stderr, which VS Code shows as
  `[error]` in the output channel. That line is dropped.
- Lifecycle as the LSP spec says (pygls 2 does not): a request before `initialize` is
  answered with `ServerNotInitialized` (-32002) and a notification then is dropped; a request
  after `shutdown` is answered with `InvalidRequest` (-32600) instead of no answer at all; a
  second `initialize` is refused the same way; `exit` ends the process with 0 after
  `shutdown`, 1 without it (`lifecycle`), and the client's `processId` is watched.
- pygls keeps the future of every notification it handles (`_request_futures`, keyed by a
  fresh uuid, removed only for requests): two per opened-and-closed document, forever. Here
  each handler's future is removed once done.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import LanguageServerProtocol, lsp_method

from agentv_lsp.engine.budget import answered, answering

if TYPE_CHECKING:
    from agentv_lsp.lsp.base import ServerBase


def _not_a_late_cancel(record: logging.LogRecord) -> bool:
    return not str(record.msg).startswith("Cancel notification for unknown message id")


logging.getLogger("pygls.protocol.json_rpc").addFilter(_not_a_late_cancel)


@dataclass(frozen=True, slots=True)
class RejectedRequest:
    """A request whose params could not be read: answered with `error`, never dispatched."""

    id: Any
    method: str
    error: JsonRpcException
    jsonrpc: str = "2.0"


_SENDING: set[Any] = set()  # asynchronous writes under way (kept from the garbage collector)


class RawJson:
    """A result already written as JSON (ASCII bytes): `AgentVProtocol` sends it as it is."""

    __slots__ = ("body",)

    def __init__(self, body: bytes) -> None:
        self.body = body

    @classmethod
    def of(cls, value: Any) -> RawJson:
        """`value` (plain JSON data) written compactly; ASCII, as pygls writes JSON."""
        return cls(json.dumps(value, separators=(",", ":")).encode("ascii"))

    @classmethod
    def of_items(cls, items: list[str]) -> RawJson:
        """A JSON array of items each already written as JSON text."""
        return cls(("[" + ",".join(items) + "]").encode("ascii"))

    def __repr__(self) -> str:
        return f"RawJson({len(self.body)} bytes)"


class _FutureTable(dict[Any, Any]):
    """pygls' table of running handlers. Its `shutdown` cancels them while iterating
    `items()`, and a cancelled handler's callback (`_execute_handler` below) removes its own
    entry at once: iterating a snapshot keeps that from raising "dictionary changed size"."""

    def items(self) -> list[tuple[Any, Any]]:  # type: ignore[override]
        return list(super().items())


class AgentVProtocol(LanguageServerProtocol):
    _server: ServerBase
    _initialize_received = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._request_futures = _FutureTable(self._request_futures)

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            method = data.get("method")
            if "id" not in data or not isinstance(method, str):
                raise  # a notification or response: there is nobody to answer
            error = (
                JsonRpcInvalidParams(f"invalid params for {method}")
                if isinstance(exc, JsonRpcInvalidParams)
                else exc
            )
            return RejectedRequest(data["id"], method, error)

    def _send_data(self, data: Any) -> None:
        result = getattr(data, "result", None)
        if isinstance(result, RawJson) and getattr(data, "error", None) is None:
            self._send_raw(data.id, result)
            return
        if (
            isinstance(result, (list, dict))
            and hasattr(data, "__attrs_attrs__")
            and getattr(data, "error", None) is None
        ):
            data = {"jsonrpc": data.jsonrpc, "id": data.id, "result": result}
        super()._send_data(data)

    def _send_raw(self, msg_id: Any, result: RawJson) -> None:
        """A response whose result is already JSON: the body assembled around it, not encoded
        again (pygls' `_send_data` without `json.dumps`)."""
        head = b'{"jsonrpc":"2.0","id":' + json.dumps(msg_id).encode("ascii") + b',"result":'
        self.write_encoded(b"".join((head, result.body, b"}")))

    def write_encoded(self, body: bytes) -> None:
        """A message already encoded as JSON, written as pygls writes one (Content-Length
        counts bytes; an asynchronous transport's write is kept until done)."""
        if self.writer is None:
            return
        header = (
            f"Content-Length: {len(body)}\r\nContent-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
            if self._include_headers
            else ""
        )
        try:
            written = self.writer.write(header.encode("ascii") + body if header else body)
            if inspect.isawaitable(written):  # a websocket's send
                sending = asyncio.ensure_future(written)
                _SENDING.add(sending)
                sending.add_done_callback(_SENDING.discard)
        except BrokenPipeError:
            logging.getLogger(__name__).exception("Error sending data. BrokenPipeError")
            raise
        except Exception as error:
            logging.getLogger(__name__).exception("Error sending data")
            self._server._report_server_error(error, JsonRpcInternalError)

    def handle_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if (
            not self._initialize_received
            and isinstance(method, str)
            and method not in (lsp.INITIALIZE, lsp.EXIT)
        ):
            # the LSP spec: before `initialize` a request is answered with ServerNotInitialized
            # (-32002) and a notification is dropped (pygls would handle both)
            if hasattr(message, "id"):
                early = JsonRpcServerNotInitialized(
                    f"{method}: the server is not initialized (send `initialize` first)"
                )
                self._send_response(message.id, None, early.to_response_error())
            return
        if self._shutdown and method != lsp.EXIT and hasattr(message, "id") and isinstance(method, str):
            error = JsonRpcInvalidRequest(f"{method}: the server is shutting down (it received `shutdown`)")
            self._send_response(message.id, None, error.to_response_error())
            return
        if isinstance(message, RejectedRequest):
            self._send_response(message.id, None, message.error.to_response_error())
            return
        super().handle_message(message)

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Callable[[Any], None],
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        # checks of other documents give way until it is answered (`engine.budget.answering`)
        key = object()
        text_document = getattr(args[0], "text_document", None) if args else None
        answering(key, getattr(text_document, "uri", None))

        def done(future: Any) -> None:
            try:
                if self._request_futures.get(msg_id) is future:
                    del self._request_futures[msg_id]  # a notification's: pygls would keep it
                callback(future)
            finally:
                answered(key)

        try:
            super()._execute_handler(msg_id, handler, done, args, kwargs)
        except BaseException:
            answered(key)
            raise

    @lsp_method(lsp.INITIALIZE)
    def lsp_initialize(self, params: lsp.InitializeParams) -> Generator[Any, Any, lsp.InitializeResult]:
        if self._initialize_received:
            raise JsonRpcInvalidRequest("initialize: the server was initialized already (send it once)")
        self._initialize_received = True
        result = yield from super().lsp_initialize(params)
        self._server.lifecycle.watch_parent(params.process_id, lambda: self._shutdown)
        return result

    @lsp_method(lsp.EXIT)
    def lsp_exit(self, *args: Any) -> Generator[Any, Any, None]:
        self._server.lifecycle.end(0 if self._shutdown else 1)  # returns only in a test process
        yield from super().lsp_exit(*args)
