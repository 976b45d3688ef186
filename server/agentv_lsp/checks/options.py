"""What checking a file takes and gives back, whichever AgentV format judges it: the options
(`CheckOptions`) and one file's report (`DocumentReport`). Shared by the v2 checker
(`formats.v2.check`), the 4.x checker (`formats.v4.check`), the CLI's runner and the language
server, so that none of them needs another's module for its types."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from agentv_lsp.checks.hidden_chars import AllowList
from agentv_lsp.checks.model import DEFAULT_MAX_DIAGNOSTICS, Diagnostic
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.yamlpos import YamlDocument

FileKind = Literal["eval", "config", "targets"]


@dataclass
class CheckOptions:
    repo_root: str
    cwd: str
    fs: FileSystem = field(default_factory=FileSystem)
    guideline_info: bool = True  # information diagnostics on files extracted to guidelines
    # Processes for the CLI's checker (one per CPU, at most 4): many files are spread over
    # them, a large eval file's cases too (`formats.v2.split`). The language server keeps 1: it
    # never forks.
    workers: int = 1
    # `agentv validate` checks file references only when the file has no other error. None:
    # decide from this text; True/False: the caller knows the answer for the whole file (the
    # language server checks a large file one case at a time).
    file_references: bool | None = None
    # Also report what this text says when file references are not checked (`formats.v2.split`:
    # a part without errors cannot know whether another part of the file has one).
    without_file_references: bool = False
    # Which AgentV judges each file (`formats.runtime`): "auto", "2" or "4".
    runtime: str = "auto"
    # Diagnostics shown per file (`checks.model.cap_diagnostics`); 0: all.
    max_diagnostics: int = DEFAULT_MAX_DIAGNOSTICS
    # Hidden characters (`hidden_chars`) that are not reported: code points, or all of them.
    allow_hidden: AllowList = field(default_factory=AllowList)
    # More names of eval files (`check --eval-glob`, `agentv.evalFilePatterns`): micromatch
    # patterns on the path relative to `cwd` (`formats.v4.discovery`).
    eval_globs: tuple[str, ...] = ()
    # Hidden-character findings as errors (`check --hidden-as-error`), before the cap (errors first).
    hidden_as_error: bool = False


@dataclass
class DocumentReport:
    path: str
    kind: FileKind | None
    doc: YamlDocument | None  # None when the file could not be read
    diagnostics: list[Diagnostic]
    # what the format that made the report keeps for its own later use (v2: `formats.v2.detail`),
    # opaque here so that the shared report names no format; only that format reads it back
    detail: object | None = None
    # eval files: whether `agentv validate`'s file-reference checks ran (no other error), and
    # when they did and `CheckOptions.without_file_references` asks, the diagnostics without them
    file_references_checked: bool | None = None
    without_file_references: list[Diagnostic] | None = None
    # the AgentV runtime that judged the file and why (set by the check runner)
    runtime: str | None = None
    runtime_reason: str | None = None
    # other files this one makes AgentV read (4.x: cases files named by `tests:`), checked too
    # when a folder walk finds this file
    uses: tuple[str, ...] = ()
