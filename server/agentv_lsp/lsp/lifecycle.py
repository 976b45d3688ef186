"""How the server process ends: `exit` and a dead parent process.

- `exit` ends the process at once with the code LSP asks for (0 after `shutdown`, else 1).
  Ending it the ordinary way would wait for every worker thread: a check of a large file
  running in one (asyncio's default executor, joined when the event loop closes) held the
  process for seconds, and pygls' own pool waits for its blocked read of stdin. Checks only
  read, so nothing is lost by not waiting for them.
- The client's `processId` (initialize) is watched by a thread that polls it: when that
  process is gone the server ends too (pygls 2 keeps the id but does not watch it), as
  vscode-languageserver does, so an editor that crashed leaves no server behind.

Only `agentv-lsp serve` ends the process (`Lifecycle.ends_process`); a server created in a
test process records the code instead.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable

PARENT_POLL_SECONDS = 1.0  # one signal-0 syscall a second


def process_alive(pid: int) -> bool:
    """Whether process `pid` exists (an existing process we may not signal counts)."""
    if sys.platform == "win32":
        return _windows_process_alive(pid)
    try:
        os.kill(pid, 0)  # signal 0: existence and permission check only
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, owned by someone else
        return True
    return True


def _windows_process_alive(pid: int) -> bool:  # pragma: no cover - Windows only
    # os.kill on Windows terminates the process whatever the signal: ask the kernel instead
    import ctypes

    synchronize, wait_timeout, access_denied = 0x00100000, 0x102, 5
    kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
    handle = kernel32.OpenProcess(synchronize, False, pid)
    if not handle:
        return bool(kernel32.GetLastError() == access_denied)
    try:
        return bool(kernel32.WaitForSingleObject(handle, 0) == wait_timeout)
    finally:
        kernel32.CloseHandle(handle)


class Lifecycle:
    def __init__(self, before_end: Callable[[], None]) -> None:
        self.ends_process = False  # set by `agentv-lsp serve`
        self.exit_code: int | None = None
        self._before_end = before_end
        self._watching: int | None = None

    def end(self, code: int) -> None:
        """End the process now with `code` (or, in a test process, record it)."""
        self.exit_code = code
        if not self.ends_process:
            return
        try:
            self._before_end()
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(OSError, ValueError):  # closed already
                    stream.flush()
            os._exit(code)

    def watch_parent(self, pid: int | None, shut_down: Callable[[], bool]) -> None:
        """End the process when `pid` (the client's processId) is gone."""
        if not self.ends_process or pid is None or pid <= 0 or pid == os.getpid() or self._watching:
            return
        self._watching = pid
        parent = os.getppid()
        threading.Thread(
            target=self._watch, args=(pid, parent, shut_down), name="agentv-lsp-parent-watch", daemon=True
        ).start()

    def _watch(self, pid: int, parent: int, shut_down: Callable[[], bool]) -> None:
        while True:
            time.sleep(PARENT_POLL_SECONDS)
            # a parent that died but is not reaped yet still exists: then we were re-parented
            gone = not process_alive(pid) or (pid == parent and os.getppid() != parent)
            if gone:
                print(f"agentv-lsp: the client process {pid} is gone: exiting", file=sys.stderr)
                self.end(0 if shut_down() else 1)
                return
