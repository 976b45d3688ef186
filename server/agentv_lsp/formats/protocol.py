"""`Format`: what the command line, `check`, `diff` and `migrate` ask of an AgentV format, one
instance per format (`formats.v2.format.V2`, `formats.v4.format.V4`), found by name in
`formats.registry`. The callers hold a `Format` and never import a format's modules; a format
imports its own machinery lazily, inside these methods, so that choosing one costs nothing.

The language server's side of a format (hover, completion, ...) is another protocol, in `lsp/`,
looked up by the same `name`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TextIO

if TYPE_CHECKING:
    from agentv_lsp.checks.options import CheckOptions, DocumentReport
    from agentv_lsp.engine.files import FileSystem

# How a folder walk takes a file: as an eval file, or as another file of the format (a v2
# config, a file declaring a format it is not judged by: checked so that the check can say so).
Taken = Literal["eval", "file"]


@dataclass
class PreviewRequest:
    """`agentv-lsp preview`'s question, whichever format answers it."""

    path: str
    repo_root: str
    cwd: str
    fs: FileSystem
    case_id: str | None = None
    runtime_reason: str = ""
    # what choosing the runtime passed over (package.json files), shown first among the warnings
    runtime_warnings: list[str] = field(default_factory=list)
    run_dirs: list[str] = field(default_factory=list)  # `--run`: more AgentV run folders to read


@dataclass
class PreviewOutcome:
    result: dict[str, Any]  # the preview object `--json` prints, token counts included
    loaded: bool  # the file loaded (else the exit status says it did not)
    missing_case: str | None = None  # `--case` named no loaded test: what to tell the user


# One revision's eval file previewed for `diff`: the preview object (`load_error`, `warnings`,
# `cases`) and the tests the runtime skipped, (id, reason) each.
DiffPreview = tuple[dict[str, Any], list[tuple[object, str]]]


@dataclass
class DiffHooks:
    """What `diff` may ask while a format previews one revision of an eval file test by test.
    A format that builds every test at once calls none of them (v2 does not)."""

    # YAML documents of eval-file texts already parsed, by text (shared by two revisions)
    parses: dict[str, Any] | None = None
    # called once the file is loaded, with the format's loaded suite (its `tests`, `skipped`,
    # `load_error`, `repo_root`)
    loaded: Callable[[Any], None] | None = None
    # called with each test in order before it is built: True when `diff` holds its prompts
    # already (the test is not built; it stands in the preview as `ReusedCase`)
    reuse: Callable[[Any], bool] | None = None
    built: Callable[[], None] | None = None  # called after each test that was built


class ReusedCase:
    """A test whose preview was skipped (`DiffHooks.reuse`): stands in for its preview case
    (only its id is read)."""

    def __init__(self, test_id: object) -> None:
        self.id = test_id

    def get(self, name: str, default: Any = None) -> Any:
        return self.id if name == "id" else default


class Format(Protocol):
    """An AgentV format: its files, their check, their preview, their prompts for `diff`."""

    name: str  # "v2", "v4": the key in `formats.registry`, and of the editor's side of the format
    major: int  # the AgentV major version it is (shown by the editor's status)
    version: str  # the runtime shown to people: "4.42.4", "2 (agentv-eval-v2)"
    request: str  # the `--agentv` / `agentv.runtime` value that asks for it ("2", "4")
    declared_reason: str  # why `auto` chose it when the file's text `declares` it

    def declares(self, text: str) -> bool:
        """The text declares this format by its own content (when the project names no AgentV)."""
        ...

    def eval_name(self, lower_path: str) -> bool:
        """`diff`'s walk takes a file by its (lower-cased) name alone: `*.eval.yaml`."""
        ...

    def declares_eval(self, head: str) -> bool:
        """`diff`'s walk: the start of a file declares an eval file of this format."""
        ...

    def walk_takes(self, path: str, text: str, opts: CheckOptions) -> Taken | None:
        """Whether `check`'s folder walk takes a file this format judges (None: leave it alone)."""
        ...

    def warm(self) -> None:
        """Import what checking needs, before `check` forks its processes (once, not in each)."""
        ...

    def check(
        self, path: str, text: str, opts: CheckOptions, *, named: bool, as_eval: bool, split: int = 1
    ) -> DocumentReport | None:
        """One file's report. `named`: the user named it (else a walk found it, and None means it
        is not this format's file after all); `as_eval`: run it as an eval file whatever its name;
        `split` > 1: a large eval file's tests are checked in that many processes, in parts that
        are merged exactly (`checks.parallel`)."""
        ...

    def uses(self, report: DocumentReport, opts: CheckOptions) -> list[str]:
        """The other files an eval file found by a walk makes AgentV read (its config, targets or
        cases files): checked as well, judged by this format."""
        ...

    def preview(self, request: PreviewRequest) -> PreviewOutcome:
        """The preview object of `agentv-lsp preview` (`--json` prints it as it is)."""
        ...

    def render_preview(
        self, result: dict[str, Any], described: str, mode: str, color: bool, out: TextIO, escape: bool
    ) -> None:
        """The preview object laid out for people. `described`: which runtime judged it and why;
        `mode`: "lm", "agent" or "both"; `escape`: show control and invisible characters escaped."""
        ...

    def tests_for_diff(self, path: str, root: str, cwd: str, fs: FileSystem, hooks: DiffHooks) -> DiffPreview:
        """One revision's eval file previewed for `diff` (`fs` notes what each test read)."""
        ...

    # Where each of `diff`'s format-specific fields is in one of this format's preview cases
    # (`criteria`, `expected_output`, `assertions`); the prompts are in the same place in all.
    diff_fields: Mapping[str, Callable[[dict[str, Any]], Any]]
