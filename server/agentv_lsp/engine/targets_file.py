"""Where `targets.yaml` is (the CLI's commands/eval/targets.ts), for both formats.

`agentv eval` looks for `targets.yaml`, `targets.yml`, `.agentv/targets.yaml` and
`.agentv/targets.yml` in each folder from the eval file's up to the repo root, then in CWD.
"""

from __future__ import annotations

import os

from agentv_lsp.engine.files import FileSystem, build_directory_chain

CANDIDATES = (
    "targets.yaml",
    "targets.yml",
    os.path.join(".agentv", "targets.yaml"),
    os.path.join(".agentv", "targets.yml"),
)


def find_targets_file(eval_path: str, repo_root: str, cwd: str, fs: FileSystem) -> str | None:
    for directory in (*build_directory_chain(eval_path, repo_root), cwd):
        for candidate in CANDIDATES:
            path = os.path.join(directory, candidate)
            if fs.exists(path):
                return path
    return None
