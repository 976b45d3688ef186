"""Run agentv-lsp under a Python audit hook (PEP 578) that records what it must never do.

    python audited.py LOG SANDBOX WORKSPACE MARKER MODE [ARGS...]

AGENTV_AUDIT_MEMORY_MB, when set, caps the address space (RLIMIT_AS).

MODE is `cli ARGS...` (agentv_lsp.cli.main(ARGS), e.g. `cli serve`), or `untrusted EVAL REPO`
(check and preview one eval file with the reads limited to WORKSPACE, as the language server
does for an untrusted workspace). Every line of LOG is a JSON object, one per violation:

- `spawn`: a process was started (subprocess, os.system, os.exec*, os.spawn*, posix_spawn);
  forking our own worker processes is allowed (the hook is inherited by them);
- `eval`: Python source holding MARKER was compiled (eval/exec/compile, or a template
  engine compiling a template: any evaluation of text from the repository);
- `outside`: a path under SANDBOX but outside WORKSPACE was opened or listed (after
  resolving symlinks). WORKSPACE `-` switches this check off.

Audit hooks cannot be removed, hence a separate process. Not a test module (no `test_`
prefix): the tests in this folder run it.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

SPAWN_EVENTS = {
    "subprocess.Popen",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.startfile",
    "pty.spawn",
}
PATH_EVENTS = {"open", "os.listdir", "os.scandir"}


def main(argv: list[str]) -> int:
    log_path, sandbox, workspace, marker, mode, *args = argv
    limit_mb = int(os.environ.get("AGENTV_AUDIT_MEMORY_MB", "0"))
    if limit_mb:  # a missing protection fails with MemoryError instead of exhausting the machine
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))
    sandbox = os.path.realpath(sandbox)
    workspace = "" if workspace == "-" else os.path.realpath(workspace)
    log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    # Import everything first, so that the imports' own file reads and code objects
    # are not mistaken for the engine's behaviour.
    import agentv_lsp.cli
    import agentv_lsp.formats.v2.check
    import agentv_lsp.formats.v2.loader
    import agentv_lsp.formats.v2.preview

    def record(kind: str, detail: Any) -> None:
        os.write(log, (json.dumps({"kind": kind, "detail": detail, "pid": os.getpid()}) + "\n").encode())

    def outside(path: Any) -> str | None:
        if isinstance(path, int) or path is None:
            return None
        text = os.fsdecode(path)
        real = os.path.realpath(text)
        in_sandbox = real == sandbox or real.startswith(sandbox + os.sep)
        in_workspace = real == workspace or real.startswith(workspace + os.sep)
        return real if in_sandbox and not in_workspace else None

    def hook(event: str, event_args: tuple[Any, ...]) -> None:
        if event in SPAWN_EVENTS:
            record("spawn", [event, repr(event_args)[:300]])
        elif event == "compile":
            source = event_args[0]
            if isinstance(source, (str, bytes)) and marker in (
                source if isinstance(source, str) else source.decode("utf-8", "replace")
            ):
                record("eval", repr(source)[:300])
        elif event == "exec":
            code = event_args[0]
            if marker in repr(getattr(code, "co_consts", ())):
                record("eval", repr(code)[:300])
        elif workspace and event in PATH_EVENTS and event_args:
            real = outside(event_args[0])
            if real is not None:
                record("outside", [event, real])

    sys.addaudithook(hook)

    if mode == "cli":
        result = agentv_lsp.cli.main(args)
        return result if isinstance(result, int) else 0
    if mode == "untrusted":
        from agentv_lsp.engine.files import FileSystem
        from agentv_lsp.formats.v2.check import CheckOptions, check_document
        from agentv_lsp.formats.v2.loader import load_all, open_eval_file
        from agentv_lsp.formats.v2.preview import preview_file

        eval_path, repo_root = args
        with open(eval_path, encoding="utf-8") as handle:
            text = handle.read()
        fs = FileSystem(allowed_roots=(workspace,))
        report = check_document(eval_path, text, CheckOptions(repo_root=repo_root, cwd=workspace, fs=fs))
        ef = open_eval_file(eval_path, repo_root=repo_root, cwd=workspace, fs=fs, text=text)
        load_all(ef)
        result = {
            "diagnostics": [[d.code, d.message] for d in report.diagnostics],
            "preview": preview_file(ef),
        }
        print(json.dumps(result, default=str))
        return 0
    raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
