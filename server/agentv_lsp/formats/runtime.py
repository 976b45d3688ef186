"""Which AgentV runtime judges a file: the one dispatch point between the formats.

`auto` asks the project first (an installed `node_modules/agentv`, else an `agentv` dependency
in a `package.json`, walking up from the file's folder to the repo root), then the file itself
(`$schema: agentv-eval-v2` or an `evalcases:` key means v2, anything else 4.x).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Literal

from agentv_lsp.formats.v4 import RUNTIME_VERSION as V4_VERSION

Requested = Literal["auto", "2", "4"]
REQUESTS: tuple[Requested, ...] = ("auto", "2", "4")
V2_VERSION = "2 (agentv-eval-v2)"

# The v2 markers, read from the text (a file that does not parse still declares its format):
# 4.x files have no `$schema`, and 4.42.4 itself knows only the v2 ids (agentv-eval-v2, ...);
# a top-level `guideline_patterns` is a v2 config (4.42.4 calls it an unexpected field).
_V2_LINE = re.compile(
    r"""^(?:[ \t]*(?:["']?evalcases["']?[ \t]*:|["']?\$schema["']?[ \t]*:[ \t]*["']?agentv-)"""
    r"""|["']?guideline_patterns["']?[ \t]*:)""",
    re.M,
)
# `^4.42.4`, `~4`, `>=4.0.0 <5`, `4.x`, `npm:agentv@4.1.0`, `workspace:^4.2.0`: the first major number
_RANGE_MAJOR = re.compile(r"(?:^|[\s^~>=<@:v]|\|\|)(\d+)(?:\.|\s|$|x)")


@dataclass(frozen=True, slots=True)
class RuntimeChoice:
    major: Literal[2, 4]
    reason: str  # for people: "installed node_modules/agentv 4.42.4", "the file declares agentv-eval-v2", ...

    @property
    def version(self) -> str:
        return V4_VERSION if self.major == 4 else V2_VERSION

    def describe(self) -> str:
        return f"AgentV {self.version} ({self.reason})"


def parse_requested(value: object) -> Requested:
    """A setting or flag value: "auto", 2/"2", 4/"4" (anything else is auto)."""
    text = str(value).strip().lower().removeprefix("v") if value is not None else "auto"
    return "2" if text.startswith("2") else "4" if text.startswith("4") else "auto"


def text_declares_v2(text: str) -> bool:
    # the substring tests are C-speed; the line regex then runs only on files that may match
    if "evalcases" not in text and "agentv-" not in text and "guideline_patterns" not in text:
        return False
    return _V2_LINE.search(text) is not None


def declares_v2(text: str) -> bool:
    """The text is an AgentV v2 file by a top-level `$schema: agentv-...` or `evalcases:` key,
    not by a substring (`image: x/agentv-runner`, a comment, a nested key or a block scalar
    do not count): the folder walks take such files whatever their name. The line test of
    `text_declares_v2` first, then the parsed top level confirms it; a text that does not
    parse is taken on the line alone (it still declares its format)."""
    if "evalcases" not in text and "agentv-" not in text:
        return False
    if _V2_KEY_LINE.search(text) is None:
        return False
    from agentv_lsp.yamlpos import parse_yaml

    doc = parse_yaml(text)
    if doc.error is not None:
        return True
    value = doc.value
    if not isinstance(value, dict):
        return False
    schema = value.get("$schema")
    return "evalcases" in value or (isinstance(schema, str) and schema.startswith("agentv-"))


_V2_KEY_LINE = re.compile(
    r"""^[ \t]*(?:["']?evalcases["']?[ \t]*:|["']?\$schema["']?[ \t]*:[ \t]*["']?agentv-)""", re.M
)


def choose_runtime(
    path: str, text: str | None, repo_root: str, requested: Requested = "auto"
) -> RuntimeChoice:
    if requested == "2":
        return RuntimeChoice(2, "asked for AgentV 2")
    if requested == "4":
        return RuntimeChoice(4, "asked for AgentV 4")
    project = project_runtime(os.path.dirname(os.path.abspath(path)), repo_root)
    if project is not None:
        return project
    if text is not None and text_declares_v2(text):
        return RuntimeChoice(2, "the file uses the v2 format ($schema agentv-eval-v2 / evalcases)")
    return RuntimeChoice(4, "no AgentV installed or declared; the file is not in the v2 format")


_project_cache: dict[tuple[str, str], RuntimeChoice | None] = {}


def project_runtime(folder: str, repo_root: str) -> RuntimeChoice | None:
    """The AgentV the project installs or declares, from `folder` up to the repo root (cached per folder)."""
    key = (folder, repo_root)
    if key in _project_cache:
        return _project_cache[key]
    found = _installed_or_declared(folder)
    if found is None:
        parent = os.path.dirname(folder)
        inside = os.path.normcase(folder) != os.path.normcase(repo_root) and parent != folder
        if inside and _is_within(parent, repo_root):
            found = project_runtime(parent, repo_root)
    _project_cache[key] = found
    return found


def forget_project_runtimes() -> None:
    """Drop cached answers (a package.json or node_modules changed)."""
    _project_cache.clear()


def _is_within(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(path), os.path.abspath(root)]) == os.path.abspath(root)
    except ValueError:
        return False


def _installed_or_declared(folder: str) -> RuntimeChoice | None:
    installed = _read_json(os.path.join(folder, "node_modules", "agentv", "package.json"))
    if installed is not None:
        version = installed.get("version")
        major = _major_of(version) if isinstance(version, str) else None
        if major is not None:
            where = os.path.join(os.path.basename(folder) or folder, "node_modules", "agentv")
            return _supported(major, f"installed {where} {version}")
    manifest = _read_json(os.path.join(folder, "package.json"))
    if manifest is not None:
        for section in ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies"):
            deps = manifest.get(section)
            spec = deps.get("agentv") if isinstance(deps, dict) else None
            if isinstance(spec, str):
                major = _major_of(spec)
                if major is not None:
                    name = os.path.join(os.path.basename(folder) or folder, "package.json")
                    return _supported(major, f"{name} {section} agentv {spec}")
    return None


def _supported(major: int, reason: str) -> RuntimeChoice:
    # 3.x and later read `tests:` files; 0.x-2.x read `evalcases`
    return RuntimeChoice(4, reason) if major >= 3 else RuntimeChoice(2, reason)


def _major_of(spec: str) -> int | None:
    match = _RANGE_MAJOR.search(spec.strip())
    return int(match.group(1)) if match else None


def _read_json(path: str) -> dict[str, object] | None:
    try:
        with open(path, encoding="utf-8") as handle:
            value = json.load(handle)
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None
