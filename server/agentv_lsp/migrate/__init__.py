"""`agentv-lsp migrate`: AgentV v2 eval files -> AgentV 4.42.4 (pure: no LSP, no argparse).

migrate_text(path, text, *, repo_root, cwd, fs=None) -> Migration   (the editor's quick fix)
run_migrate(paths, write, fmt, repo_root, cwd, out) -> int          (the CLI subcommand)
"""

from agentv_lsp.migrate.cli_glue import run_migrate
from agentv_lsp.migrate.engine import migrate_text, migrated_name
from agentv_lsp.migrate.model import CaseProof, CompanionChange, Finding, Migration

__all__ = [
    "CaseProof",
    "CompanionChange",
    "Finding",
    "Migration",
    "migrate_text",
    "migrated_name",
    "run_migrate",
]
