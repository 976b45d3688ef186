"""`lsp.protocol.AgentVProtocol`: plain-JSON results skip pygls' cattrs pass but are
written exactly as pygls writes them, typed items included; results already written as JSON
(`RawJson`) are spliced in as they are, with the right Content-Length; bad params get an answer."""

from __future__ import annotations

import json
from typing import Any

import pytest
from lsprotocol import types as lsp
from pygls.protocol import LanguageServerProtocol

from agentv_lsp.lsp.protocol import AgentVProtocol, RawJson
from agentv_lsp.lsp.server import create_server


class Capture:
    def __init__(self) -> None:
        self.bodies: list[Any] = []

    def write(self, data: bytes) -> None:
        self.bodies.append(json.loads(data))

    def close(self) -> None:
        pass


def written(protocol: LanguageServerProtocol, msg_id: int, result: Any) -> Any:
    capture = Capture()
    protocol.set_writer(capture, include_headers=False)
    protocol._send_response(msg_id, result)
    return capture.bodies[-1]


@pytest.mark.parametrize(
    "result",
    [
        [
            {
                "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}},
                "data": {"i": 1},
            }
        ],
        [lsp.CompletionItem(label="user", kind=lsp.CompletionItemKind.EnumMember, detail=None)],
        {"kind": "full", "items": []},
        lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value="x")),
        None,
        [],
    ],
    ids=["json-list", "typed-list", "json-dict", "typed", "null", "empty"],
)
def test_results_are_written_as_pygls_writes_them(result: Any) -> None:
    ours = create_server().protocol
    assert isinstance(ours, AgentVProtocol)
    theirs = LanguageServerProtocol(create_server(), ours._converter)
    assert written(ours, 7, result) == written(theirs, 7, result)
    assert written(ours, 7, result)["id"] == 7 and "result" in written(ours, 7, result)


def test_a_request_with_bad_params_is_answered_with_invalid_params() -> None:
    protocol = create_server().protocol
    protocol._initialize_received = True  # as after `initialize` (before it every request is refused)
    capture = Capture()
    protocol.set_writer(capture, include_headers=False)
    body = {"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {"textDocument": 5}}
    message = json.loads(json.dumps(body), object_hook=protocol.structure_message)
    protocol.handle_message(message)
    assert capture.bodies[-1]["id"] == 3
    assert capture.bodies[-1]["error"]["code"] == -32602
    assert "textDocument/hover" in capture.bodies[-1]["error"]["message"]


SPLICED = [
    [{"name": "café ✓ 𝄞", "kind": 19, "children": [{"name": '%d \\ "q"'}]}],
    [],
    {"kind": "full", "items": [1, 2.5, None, True]},
    None,
]


@pytest.mark.parametrize("msg_id", [7, "req-é", 0])
@pytest.mark.parametrize("value", SPLICED, ids=["symbols", "empty", "dict", "null"])
def test_a_raw_json_result_is_the_response_pygls_would_write(value: Any, msg_id: Any) -> None:
    ours = create_server().protocol
    theirs = LanguageServerProtocol(create_server(), ours._converter)
    assert written(ours, msg_id, RawJson.of(value)) == written(theirs, msg_id, value)


def test_a_raw_json_response_counts_its_bytes() -> None:
    """Content-Length in bytes, the body valid JSON-RPC: a reader taking exactly that many
    bytes gets the whole response and nothing of the next."""
    protocol = create_server().protocol
    raw: list[bytes] = []

    class Bytes:
        write = raw.append

        def close(self) -> None:
            pass

    protocol.set_writer(Bytes(), include_headers=True)
    protocol._send_response(4, RawJson(json.dumps(["é"], ensure_ascii=False).encode("utf-8")))
    header, _, body = raw[-1].partition(b"\r\n\r\n")
    length = int(header.split(b"Content-Length: ")[1].split(b"\r\n")[0])
    assert length == len(body) and json.loads(body) == {"jsonrpc": "2.0", "id": 4, "result": ["é"]}


def test_an_error_response_stays_an_error() -> None:
    protocol = create_server().protocol
    capture = Capture()
    protocol.set_writer(capture, include_headers=False)
    error = lsp.ResponseError(code=-32800, message="cancelled")
    protocol._send_response(9, RawJson.of([1]), error)
    assert capture.bodies[-1] == {
        "jsonrpc": "2.0",
        "id": 9,
        "error": {"code": -32800, "message": "cancelled"},
    }
