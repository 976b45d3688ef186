"""Which files AgentV 4.42.4 reads as eval files when it is given a folder, and which names
the user says are eval files.

AgentV has three answers, and a folder walk of `agentv-lsp check` takes their union:

- `agentv validate DIR` takes `*.eval.yaml` / `*.eval.yml` (any case);
- `agentv eval run DIR` expands a folder to `**/{*.eval.yaml,*.eval.yml,eval.yaml,eval.yml}`
  (fast-glob, case-sensitive);
- `agentv eval` without paths (and the results dashboard) discovers the files matching the
  `eval_patterns` of `.agentv/config.yaml`, by default `**/evals/**/eval.yaml` and
  `**/evals/**/*.eval.yaml`, case-insensitively.

Beyond those, `check --eval-glob PATTERN` (and the server setting `agentv.evalFilePatterns`)
names more eval files. A file named this way is judged as the runtime's loader judges it
(`agentv eval run EVAL.yaml` loads any file it is given), with `agentv validate`'s own verdict
("File type not recognized") shown beside it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentv_lsp.engine.files import FileReadError, FileSystem, build_directory_chain
from agentv_lsp.engine.globs import is_match
from agentv_lsp.formats.v4.yamlbom import parse_yaml_v4

# `validateFiles`' folder scan (`isEvalYamlFile`: the lower-cased name)
_VALIDATE_NAME = re.compile(r"\.eval\.ya?ml$", re.I)
# `resolveEvalPaths`' folder glob, the YAML part (fast-glob is case-sensitive by default)
_RUN_FOLDER_NAMES = ("eval.yaml", "eval.yml")
# `DEFAULT_EVAL_PATTERNS` (config-loader.ts), the YAML ones (`*.eval.ts` is not ours)
DEFAULT_EVAL_PATTERNS = ("**/evals/**/*.eval.yaml", "**/evals/**/eval.yaml")


def validate_reads(path: str) -> bool:
    """`agentv validate DIR` checks this file (its name ends in `.eval.yaml` / `.eval.yml`)."""
    return _VALIDATE_NAME.search(path) is not None


def run_reads(path: str) -> bool:
    """`agentv eval run DIR` runs this file when it lies under DIR (besides `*.eval.yaml`)."""
    return os.path.basename(path) in _RUN_FOLDER_NAMES


@dataclass(frozen=True, slots=True)
class EvalPatterns:
    """The project's `eval_patterns` (or AgentV's defaults), matched from `base`."""

    base: str
    patterns: tuple[str, ...]
    source: str  # for people: ".agentv/config.yaml eval_patterns" or "AgentV's default eval_patterns"

    def matches(self, path: str) -> bool:
        relative = os.path.relpath(path, self.base)
        if relative.startswith(".."):
            return False
        # `discoverEvalFiles` passes `caseSensitiveMatch: false`
        subject = relative.replace(os.sep, "/").lower()
        return is_match(subject, [p.lower() for p in self.patterns])


_patterns_cache: dict[tuple[str, str, int], EvalPatterns] = {}


def project_eval_patterns(folder: str, repo_root: str, fs: FileSystem) -> EvalPatterns:
    """The `eval_patterns` of the first valid `.agentv/config.yaml` from `folder` up to the
    repo root, as `loadConfig` finds it (`eval_patterns` absent or empty: the defaults, from
    that project folder). The home config (`~/.agentv/config.yaml`) is left out: a check must
    not depend on the machine it runs on."""
    key = (folder, repo_root, id(fs))
    found = _patterns_cache.get(key)
    if found is not None:
        return found
    found = EvalPatterns(repo_root, DEFAULT_EVAL_PATTERNS, "AgentV's default eval_patterns")
    for directory in build_directory_chain(os.path.join(folder, "_"), repo_root):
        config = os.path.join(directory, ".agentv", "config.yaml")
        if not fs.exists(config):
            continue
        valid, patterns = _config_patterns(config, fs)
        if not valid:
            continue  # `loadConfig` skips an invalid config and looks further up
        if patterns:
            found = EvalPatterns(directory, patterns, f"eval_patterns of {config}")
        else:
            found = EvalPatterns(directory, DEFAULT_EVAL_PATTERNS, "AgentV's default eval_patterns")
        break
    if len(_patterns_cache) > 4096:
        _patterns_cache.clear()
    _patterns_cache[key] = found
    return found


def forget_project_eval_patterns() -> None:
    """Drop cached answers (a `.agentv/config.yaml` changed)."""
    _patterns_cache.clear()


def _config_patterns(path: str, fs: FileSystem) -> tuple[bool, tuple[str, ...]]:
    """(whether `readConfigFile` accepts the config, its eval_patterns)."""
    try:
        text = fs.read_text(path)
    except FileReadError:
        return False, ()
    value = parse_yaml_v4(text).value
    if not isinstance(value, dict):
        return False, ()
    required = value.get("required_version")
    if required is not None and not isinstance(required, str):
        return False, ()
    patterns = value.get("eval_patterns")
    if patterns is None:
        return True, ()
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        return False, ()
    return True, tuple(p for p in patterns if p)


def user_globs_match(path: str, globs: Sequence[str], cwd: str) -> bool:
    """`--eval-glob` / `agentv.evalFilePatterns`: micromatch patterns on the path relative to
    the working directory (as fast-glob reads `agentv eval run 'evals/**/EVAL.yaml'`), or on
    the absolute path for an absolute pattern."""
    if not globs:
        return False
    relative = os.path.relpath(path, cwd).replace(os.sep, "/")
    absolute = path.replace(os.sep, "/")
    return any(is_match(absolute if g.startswith("/") else relative, [g]) for g in globs)


def walk_takes_as_eval(path: str, repo_root: str, cwd: str, fs: FileSystem, globs: Sequence[str]) -> bool:
    """A file found by a folder walk that AgentV 4.42.4 (or the user) reads as an eval file."""
    if run_reads(path) or validate_reads(path) or user_globs_match(path, globs, cwd):
        return True
    return project_eval_patterns(os.path.dirname(path), repo_root, fs).matches(path)


__all__ = [
    "DEFAULT_EVAL_PATTERNS",
    "EvalPatterns",
    "forget_project_eval_patterns",
    "project_eval_patterns",
    "run_reads",
    "user_globs_match",
    "validate_reads",
    "walk_takes_as_eval",
]
