"""JSON-RPC framing fixes on top of pygls' protocol.

pygls 2 turns a request whose params do not fit the method's type into an exception
raised while the message is being read, so the request is never answered and the editor
waits forever. JSON-RPC 2.0 requires an answer: here such a request becomes an
`InvalidParams` (-32602) error response naming the method.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol


@dataclass(frozen=True, slots=True)
class RejectedRequest:
    """A request whose params could not be read: answered with `error`, never dispatched."""

    id: Any
    method: str
    error: JsonRpcException
    jsonrpc: str = "2.0"


class AgentVProtocol(LanguageServerProtocol):
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

    def handle_message(self, message: Any) -> None:
        if isinstance(message, RejectedRequest):
            self._send_response(message.id, None, message.error.to_response_error())
            return
        super().handle_message(message)
