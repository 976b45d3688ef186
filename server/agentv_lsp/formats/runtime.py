"""Which AgentV runtime judges a file: the one choice between the formats, whose answer names
the `Format` (`formats.registry`) that then does the work.

`auto` asks the project first (an installed `node_modules/agentv`, else an `agentv` dependency
in a `package.json`, walking up from the file's folder to the repo root), then the file itself
(each registered format is asked whether the text declares it: `$schema: agentv-eval-v2` or an
`evalcases:` key means v2; what none declares, 4.x).

Those manifests are untrusted input like the eval files, and are read the same way, through
`engine.files.FileSystem` (regular files only, opened non-blocking, a size cap, nothing outside
the allowed folders of an untrusted workspace). One that cannot be used is passed over and
named in `RuntimeChoice.problems`; the choice then goes on as if it were absent.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from agentv_lsp.checks.model import Diagnostic
from agentv_lsp.engine.files import DISK, FileReadError, FileSystem, Source
from agentv_lsp.formats import registry
from agentv_lsp.formats.declared import declares_v2, text_declares_v2
from agentv_lsp.yamlpos import Span

if TYPE_CHECKING:
    from agentv_lsp.formats.protocol import Format

# re-exported: the v2 markers were read here before they moved to `formats.declared`
__all__ = ["declares_v2", "text_declares_v2"]

Requested = Literal["auto", "2", "4"]
REQUESTS: tuple[Requested, ...] = ("auto", "2", "4")

# `^4.42.4`, `~4`, `>=4.0.0 <5`, `4.x`, `npm:agentv@4.1.0`, `workspace:^4.2.0`: the first major number
_RANGE_MAJOR = re.compile(r"(?:^|[\s^~>=<@:v]|\|\|)(\d+)(?:\.|\s|$|x)")
# A package.json is a few KB (agentv's own: 2 KB); past this it is not read at all.
MANIFEST_MAX_BYTES = 1024 * 1024
# A major version longer than this is no version (and `int()` of 5,000 digits raises).
_MAX_MAJOR_DIGITS = 9


@dataclass(frozen=True, slots=True)
class RuntimeChoice:
    major: int  # the AgentV major version of the format (2, 4)
    reason: str  # for people: "installed node_modules/agentv 4.42.4", "the file declares agentv-eval-v2", ...
    # manifests passed over, one sentence each naming the file ("evals/package.json: not a regular
    # file (a FIFO, socket, device or folder), not read; not used to choose the AgentV runtime")
    problems: tuple[str, ...] = ()
    by_file: bool = False  # `auto` found no AgentV in the project: the file's own format decided
    # the format's name in `formats.registry` ("" : the one of `major`, 3 and later being 4.x)
    name: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", registry.for_major(self.major).name)

    @property
    def format(self) -> Format:
        return registry.get(self.name)

    @property
    def version(self) -> str:
        return self.format.version

    def describe(self) -> str:
        return f"AgentV {self.version} ({self.reason})"


def parse_requested(value: object) -> Requested:
    """A setting or flag value: "auto", 2/"2", 4/"4" (anything else is auto)."""
    text = str(value).strip().lower().removeprefix("v") if value is not None else "auto"
    return "2" if text.startswith("2") else "4" if text.startswith("4") else "auto"


def choose_runtime(
    path: str,
    text: str | None,
    repo_root: str,
    requested: Requested = "auto",
    fs: FileSystem | None = None,
) -> RuntimeChoice:
    """`fs`: the reads of the caller (an untrusted workspace's folders, a git revision); only
    its `allowed_roots` and `source` matter here, the manifests get their own size cap."""
    asked = registry.for_request(requested) if requested != "auto" else None
    if asked is not None:
        return RuntimeChoice(asked.major, f"asked for AgentV {asked.request}", name=asked.name)
    allowed = fs.allowed_roots if fs is not None else None
    source = fs.source if fs is not None else DISK
    project = project_runtime(os.path.dirname(os.path.abspath(path)), repo_root, allowed, source)
    if project.choice is not None:
        return project.choice
    fallback = registry.default()
    if text is not None:
        for fmt in registry.formats():
            if fmt is not fallback and fmt.declares(text):
                return RuntimeChoice(fmt.major, fmt.declared_reason, project.problems, True, fmt.name)
    return RuntimeChoice(fallback.major, fallback.declared_reason, project.problems, name=fallback.name)


@dataclass(frozen=True, slots=True)
class ProjectRuntime:
    """What the manifests from a folder up to the repo root say: the runtime they choose (None:
    none of them does) and the ones passed over on the way."""

    choice: RuntimeChoice | None
    problems: tuple[str, ...] = ()


_project_cache: dict[tuple[str, str, tuple[str, ...] | None, Source], ProjectRuntime] = {}


def project_runtime(
    folder: str, repo_root: str, allowed_roots: tuple[str, ...] | None = None, source: Source = DISK
) -> ProjectRuntime:
    """The AgentV the project installs or declares, from `folder` up to the repo root (cached
    per folder). `allowed_roots`: an untrusted workspace's folders, as in `FileSystem`;
    `source`: where the files are read (the disk, a git revision)."""
    key = (folder, repo_root, allowed_roots, source)
    found = _project_cache.get(key)
    if found is not None:
        return found
    fs = FileSystem(max_bytes=MANIFEST_MAX_BYTES, allowed_roots=allowed_roots, cache=False, source=source)
    here, problems = _installed_or_declared(folder, repo_root, fs)
    found = ProjectRuntime(here, problems)
    if here is None:
        parent = os.path.dirname(folder)
        inside = os.path.normcase(folder) != os.path.normcase(repo_root) and parent != folder
        if inside and _is_within(parent, repo_root):
            above = project_runtime(parent, repo_root, allowed_roots, source)
            found = ProjectRuntime(above.choice, problems + above.problems)
    if found.choice is not None and found.problems:
        # the choice is made by a manifest; those passed over on the way are still worth a word
        found = ProjectRuntime(
            RuntimeChoice(found.choice.major, found.choice.reason, found.problems, name=found.choice.name),
            found.problems,
        )
    _project_cache[key] = found
    return found


def forget_project_runtimes(source: Source | None = None) -> None:
    """Drop cached answers (a package.json or node_modules changed; `source`: only those read
    from it, a git revision that is closed)."""
    if source is None:
        _project_cache.clear()
        return
    for key in [k for k in _project_cache if k[3] is source]:
        _project_cache.pop(key, None)


def _is_within(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(path), os.path.abspath(root)]) == os.path.abspath(root)
    except ValueError:
        return False


def _installed_or_declared(
    folder: str, repo_root: str, fs: FileSystem
) -> tuple[RuntimeChoice | None, tuple[str, ...]]:
    problems: list[str] = []
    installed_path = os.path.join(folder, "node_modules", "agentv", "package.json")
    installed = _read_manifest(installed_path, repo_root, fs, problems)
    if installed is not None:
        version = installed.get("version")
        major = _major_of(version) if isinstance(version, str) else None
        if isinstance(version, str) and major is not None:
            where = os.path.join(os.path.basename(folder) or folder, "node_modules", "agentv")
            return _supported(major, f"installed {where} {_shown_value(version)}"), tuple(problems)
        if isinstance(version, str):
            problems.append(
                _problem(installed_path, repo_root, f"version {_shown_value(version)} not understood")
            )
        elif "version" in installed:
            problems.append(_problem(installed_path, repo_root, f"version is {_json_kind(version)}"))
    manifest_path = os.path.join(folder, "package.json")
    manifest = _read_manifest(manifest_path, repo_root, fs, problems)
    if manifest is not None:
        for section in ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies"):
            deps = manifest.get(section)
            spec = deps.get("agentv") if isinstance(deps, dict) else None
            if isinstance(deps, dict) and "agentv" in deps and not isinstance(spec, str):
                problems.append(_problem(manifest_path, repo_root, f"{section} agentv is {_json_kind(spec)}"))
            if isinstance(spec, str):
                major = _major_of(spec)
                if major is not None:
                    name = os.path.join(os.path.basename(folder) or folder, "package.json")
                    return _supported(major, f"{name} {section} agentv {_shown_value(spec)}"), tuple(problems)
                problems.append(
                    _problem(
                        manifest_path, repo_root, f"{section} agentv {_shown_value(spec)} not understood"
                    )
                )
    return None, tuple(problems)


def _supported(major: int, reason: str) -> RuntimeChoice:
    fmt = registry.for_major(major)
    return RuntimeChoice(fmt.major, reason, name=fmt.name)


def _major_of(spec: str) -> int | None:
    match = _RANGE_MAJOR.search(spec.strip())
    if match is None or len(match.group(1)) > _MAX_MAJOR_DIGITS:
        return None
    return int(match.group(1))


def _json_kind(value: object) -> str:
    """What a JSON value that should have been a version string is (never the value: it may be
    huge)."""
    if value is None:
        return "null, not a version string"
    if isinstance(value, bool):
        return f"{'true' if value else 'false'}, not a version string"
    kind = (
        "a number"
        if isinstance(value, (int, float))
        else "an object"
        if isinstance(value, dict)
        else "an array"
    )
    return f"{kind}, not a version string"


def _shown_value(value: str) -> str:
    """A version as quoted in a reason or problem: at most 40 characters."""
    return value if len(value) <= 40 else f"{value[:20]}…{value[-10:]} ({len(value):,} characters)"


def _problem(path: str, repo_root: str, what: str) -> str:
    relative = os.path.relpath(path, repo_root)
    shown = path if relative.startswith("..") else relative.replace(os.sep, "/")
    return f"{shown}: {what}; not used to choose the AgentV runtime"


def _read_manifest(path: str, repo_root: str, fs: FileSystem, problems: list[str]) -> dict[str, Any] | None:
    """A package.json as an object, read like an eval file's references (`FileSystem`): None
    when absent, and also, with a line in `problems`, when it cannot be used."""
    if not fs.lexists(path):
        return None  # absent: the usual case, nothing to say
    if not fs.exists(path):
        if fs.was_blocked(path):
            problems.append(
                _problem(
                    path, repo_root, "it leads outside the workspace folders (untrusted workspace), not read"
                )
            )
        elif fs.is_symlink_loop(path):
            problems.append(_problem(path, repo_root, "a symbolic link loop"))
        return None  # a dangling symlink: as good as absent
    try:
        read = fs.read(path)
    except FileReadError as exc:
        refused = exc.code in ("ENOTREG", "EISDIR")
        what = (
            "not a regular file (a FIFO, socket, device or folder), not read"
            if refused
            else f"cannot be read ({exc})"
        )
        problems.append(_problem(path, repo_root, what))
        return None
    if read.truncated:
        problems.append(
            _problem(
                path, repo_root, f"larger than {MANIFEST_MAX_BYTES:,} bytes ({read.size:,} bytes), not read"
            )
        )
        return None
    try:
        # numbers stay out of `int()` (5,000 digits raise); nesting is bounded by the stack
        value = json.loads(read.text, parse_int=float, parse_constant=lambda _: None)
    except ValueError as exc:
        problems.append(_problem(path, repo_root, f"not valid JSON ({exc})"))
        return None
    except RecursionError:
        problems.append(_problem(path, repo_root, "not valid JSON (nested too deeply)"))
        return None
    if not isinstance(value, dict):
        problems.append(_problem(path, repo_root, "not a JSON object"))
        return None
    return value


UNDECLARED_V2_CODE = "runtime-v2-undeclared"


def undeclared_v2_note(path: str, text: str, choice: RuntimeChoice) -> Diagnostic | None:
    """An information finding on a v2 file judged as v2 only because the project names no
    AgentV: the AgentV installed today (4.x) would not load it. At its `evalcases:` (else
    `$schema:`) key; `data["fix"] = "migrate"` offers the migration as its quick fix."""
    if choice.name != "v2" or not choice.by_file:
        return None
    line = _first_v2_key_line(text)
    if line is None:
        return None
    number, start, end, key = line
    message = (
        f"Judged as AgentV v2 because {choice.reason} and the project installs or declares no AgentV "
        "(no node_modules/agentv, no `agentv` dependency in a package.json up to the repo root). "
        f"AgentV {registry.get('v4').version}, what `npx agentv` installs today, does not load v2 files: it reads `tests:`, "
        "so it would find no test here. Migrate it (`agentv-lsp migrate`, or this finding's quick fix), or declare "
        '`"agentv": "^2"` in package.json to keep v2.'
    )
    return Diagnostic(
        path,
        Span(number, start, number, end),
        "information",
        UNDECLARED_V2_CODE,
        message,
        (),
        {"fix": "migrate", "legacy": key},
    )


def _first_v2_key_line(text: str) -> tuple[int, int, int, str] | None:
    """(line, start, end, key) of the top-level `evalcases` key, else of `$schema`."""
    for key in ("evalcases", r"\$schema"):
        match = re.search(rf"""^(["']?){key}\1[ \t]*:""", text, re.M)
        if match is not None:
            end = match.end() - match.start() - 1
            line = text.count("\n", 0, match.start())
            return line, 0, len(text[match.start() : match.start() + end].rstrip(" \t")), key.lstrip("\\")
    return None
