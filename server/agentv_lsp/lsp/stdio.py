"""The server's stdin read by the event loop itself, not by a thread pool.

pygls 2 reads stdin with `run_in_executor`: each header line and each body is a round trip
to a pool thread and back, six thread switches per message. Every switch needs the GIL, which
a check running in a worker thread holds; on a loaded machine each one waited milliseconds,
most of a hover's time while another document was checked. Here the loop reads the pipe
(`connect_read_pipe`): a message costs one wake-up of the loop. Where the loop cannot watch
stdin (a regular file, /dev/null, a terminal, Windows' pipes), pygls' own reader is kept.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
import threading
from typing import TYPE_CHECKING, BinaryIO

from pygls.io_ import StdinAsyncReader, StdoutWriter, run_async

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

logger = logging.getLogger(__name__)

# A header line longer than this is not a header: it is dropped (as pygls ignores it).
MAX_HEADER_LINE = 1 << 16


class LoopReader:
    """`readline` and `readexactly` as pygls' `run_async` calls them (b"" at the end of
    the input), served by the event loop from the pipe."""

    def __init__(self, stdin: BinaryIO) -> None:
        self._stdin = stdin
        self._stream: asyncio.StreamReader | None = None

    async def _opened(self) -> asyncio.StreamReader:
        if self._stream is None:
            stream = asyncio.StreamReader(limit=MAX_HEADER_LINE)
            loop = asyncio.get_running_loop()
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), self._stdin)
            self._stream = stream
        return self._stream

    async def readline(self) -> bytes:
        stream = await self._opened()
        try:
            return await stream.readline()
        except ValueError:  # over the limit: the stream dropped that much; not a header
            return b"?"

    async def readexactly(self, n: int) -> bytes:
        stream = await self._opened()
        try:
            return await stream.readexactly(n)
        except asyncio.IncompleteReadError:
            return b""


def loop_can_read(stdin: BinaryIO) -> bool:
    """Whether the event loop can watch `stdin`: a pipe or a socket, on a POSIX system."""
    if sys.platform == "win32":
        return False  # the proactor loop needs overlapped handles; an editor's pipe is not one
    try:
        mode = os.fstat(stdin.fileno()).st_mode
    except (OSError, ValueError):  # no file descriptor (a test's BytesIO)
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def serve_stdio(
    server: LanguageServer, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
) -> None:
    """pygls' `start_io` (its `_start_io_async`), with stdin read by the loop where it can be."""
    stdin = stdin or sys.stdin.buffer
    server._stop_event = threading.Event()
    reader: LoopReader | StdinAsyncReader = (
        LoopReader(stdin) if loop_can_read(stdin) else StdinAsyncReader(stdin, server.thread_pool)
    )
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
    try:
        asyncio.run(
            run_async(
                stop_event=server._stop_event,
                reader=reader,
                protocol=server.protocol,
                logger=logger,
                error_handler=server.report_server_error,
            )
        )
    except BrokenPipeError:
        logger.error("Connection to the client is lost! Shutting down the server.")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]
