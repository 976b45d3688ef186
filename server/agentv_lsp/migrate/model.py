"""What a migration produces: the new text, the new name, and what a person must know."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# migrated: a v2 file and its 4.42.4 text; untouched: a v2 file the migration leaves alone
# (it does not load in v2, or its layout cannot be edited safely); not-v2: nothing to do.
Status = Literal["migrated", "untouched", "not-v2"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One line of the report. `attention` findings make `migrate` exit 1."""

    message: str
    line: int | None = None  # 1-based line in the v2 file, when the finding has a place
    attention: bool = False
    file: str | None = None  # another file than the eval file (a prompt file, a config)

    def as_json(self) -> dict[str, Any]:
        return {"message": self.message, "line": self.line, "attention": self.attention, "file": self.file}


@dataclass(slots=True)
class CaseProof:
    """One case: the v2 LM question beside the 4.42.4 one of the migrated test."""

    id: str
    v2_question: str | None
    v4_question: str | None
    verdict: Literal["unchanged", "changed", "missing"]
    causes: list[str] = field(default_factory=list)
    diff: str = ""  # unified diff of the two questions when they differ
    other: list[str] = field(default_factory=list)  # criteria / reference answer differences
    v2_reference: str | None = None  # the reference answer each side gives the grader
    v4_reference: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "verdict": self.verdict,
            "causes": self.causes,
            "v2_question": self.v2_question,
            "v4_question": self.v4_question,
            "diff": self.diff,
            "other": self.other,
        }


@dataclass(frozen=True, slots=True)
class CompanionChange:
    """Another file the migration rewrites (a grader prompt using v2 template variables)."""

    path: str
    old_text: str
    new_text: str
    reason: str


@dataclass(slots=True)
class Migration:
    path: str  # absolute path of the v2 file
    status: Status
    old_text: str
    new_text: str
    new_path: str  # == path unless the file must be renamed for 4.42.4 to find it
    findings: list[Finding] = field(default_factory=list)
    cases: list[CaseProof] = field(default_factory=list)
    companions: list[CompanionChange] = field(default_factory=list)
    v4_load_error: str | None = None
    v4_warnings: list[str] = field(default_factory=list)
    written: bool = False  # set once --write has put the new text in place
    # files this migration would change that --write leaves alone (outside the paths given or
    # the repo root, after symlinks): each has an attention finding
    not_written: list[str] = field(default_factory=list)
    # symbolic links that lead to the renamed file, with the target each gets (`mend_links`)
    links: list[tuple[str, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.new_text != self.old_text or self.new_path != self.path or bool(self.companions)

    @property
    def needs_attention(self) -> bool:
        return self.status == "untouched" or any(f.attention for f in self.findings)

    def as_json(self) -> dict[str, Any]:
        return {
            "file": self.path,
            "status": self.status,
            "new_file": self.new_path,
            "changed": self.changed,
            "needs_attention": self.needs_attention,
            "findings": [f.as_json() for f in self.findings],
            "cases": [c.as_json() for c in self.cases],
            "companions": [{"file": c.path, "reason": c.reason} for c in self.companions],
            "v4_load_error": self.v4_load_error,
            "v4_warnings": self.v4_warnings,
            "written": self.written,
            "not_written": self.not_written,
            "links_retargeted": [{"link": link, "target": target} for link, target in self.links],
        }
