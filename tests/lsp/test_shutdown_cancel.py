"""`shutdown` cancels the handlers still running. pygls iterates its table of running handlers
while cancelling, and our protocol removes a handler's entry from its done-callback (issue 25,
item 8: nothing kept per notification); a cancelled thread future runs that callback at once.
Seen in the full suite as "RuntimeError: dictionary changed size during iteration" on shutdown."""

from __future__ import annotations

import concurrent.futures

from agentv_lsp.lsp.server import create_server


def test_shutdown_cancels_handlers_that_remove_themselves() -> None:
    protocol = create_server().protocol
    futures = []
    for n in range(3):
        future: concurrent.futures.Future[None] = concurrent.futures.Future()
        protocol._request_futures[f"n{n}"] = future
        future.add_done_callback(lambda _f, key=f"n{n}": protocol._request_futures.pop(key, None))
        futures.append(future)
    steps = protocol.lsp_shutdown()
    try:
        step = next(steps)
        while True:  # our own shutdown handler, if any, runs as pygls would run it
            handler, args, _ = step
            step = steps.send(handler(*args))
    except StopIteration:
        pass
    assert all(f.cancelled() for f in futures)
    assert not any(key.startswith("n") for key in protocol._request_futures)
