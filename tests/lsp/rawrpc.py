"""A bare JSON-RPC client over a server's stdio, for what pytest-lsp cannot express: requests
after `shutdown`, `exit` without it, a second `initialize`, the exit code, the process dying.
Requests from the server (registrations, configuration) are answered with null."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import IO, Any

SERVE = [sys.executable, "-m", "agentv_lsp", "serve"]


class RawClient:
    def __init__(self, reader: IO[bytes], writer: IO[bytes]) -> None:
        self.writer = writer
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.notifications: list[dict[str, Any]] = []
        self._next_id = 0
        threading.Thread(target=self._read, args=(reader,), daemon=True).start()

    def _read(self, reader: IO[bytes]) -> None:
        try:
            while True:
                length = None
                while True:
                    header = reader.readline()
                    if not header:
                        return
                    if header in (b"\r\n", b"\n"):
                        break
                    name, _, value = header.decode("ascii").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                assert length is not None
                self.messages.put(json.loads(reader.read(length)))
        except (OSError, ValueError):
            return
        finally:
            self.messages.put(None)  # the server closed its output

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.writer.flush()

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"method": method, **({} if params is None else {"params": params})})

    def request(self, method: str, params: Any = None, timeout: float = 30) -> dict[str, Any]:
        """Send a request and return its response (the whole message: `result` or `error`)."""
        self._next_id += 1
        msg_id = self._next_id
        self.send({"id": msg_id, "method": method, **({} if params is None else {"params": params})})
        return self.wait(lambda m: m.get("id") == msg_id and "method" not in m, timeout)

    def wait(self, matches: Callable[[dict[str, Any]], bool], timeout: float = 30) -> dict[str, Any]:
        while True:
            message = self.messages.get(timeout=timeout)
            if message is None:
                raise EOFError("the server closed its output")
            if "method" in message and "id" in message:  # a request from the server
                self.send({"id": message["id"], "result": None})
            elif "method" in message:
                self.notifications.append(message)
            if matches(message):
                return message

    def notification(
        self, method: str, matches: Callable[[Any], bool] = lambda params: True, timeout: float = 30
    ) -> Any:
        """The params of the first notification `method` (received already, or next) they match."""
        for seen in self.notifications:
            if seen["method"] == method and matches(seen.get("params")):
                return seen.get("params")
        message = self.wait(
            lambda m: "id" not in m and m.get("method") == method and matches(m.get("params")), timeout
        )
        return message.get("params")

    def initialize(self, root_uri: str | None = None, process_id: int | None = None) -> dict[str, Any]:
        reply = self.request("initialize", {"processId": process_id, "rootUri": root_uri, "capabilities": {}})
        self.notify("initialized", {})
        return reply


def spawn(*args: str) -> tuple[subprocess.Popen[bytes], RawClient]:
    process = subprocess.Popen(
        [*SERVE, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdin is not None and process.stdout is not None
    return process, RawClient(process.stdout, process.stdin)
