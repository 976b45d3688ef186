"""`.agentv/config.yaml` discovery and `guideline_patterns` (loaders/config-loader.ts).

The first *valid* config on the way from the eval file's folder up to the repo root wins;
an invalid one produces a warning and the search goes on upward. There are no default
patterns: without a config nothing is a guideline.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field

from agentv_lsp.engine.files import FileReadError, FileSystem, build_directory_chain
from agentv_lsp.engine.globs import first_match
from agentv_lsp.formats.v2.model import Notice
from agentv_lsp.yamlpos import parse_yaml

SCHEMA_CONFIG_V2 = "agentv-config-v2"


@dataclass(frozen=True, slots=True)
class ConfigLookup:
    """Which config applies to an eval file, and what was said on the way."""

    path: str | None  # the config in use (None: no valid config)
    guideline_patterns: tuple[str, ...] | None  # None when no config or no patterns key
    notices: tuple[Notice, ...] = ()
    # configs that were found but skipped because they are invalid (the warnings say why)
    skipped: tuple[str, ...] = field(default=())


def load_config(eval_path: str, repo_root: str, fs: FileSystem) -> ConfigLookup:
    notices: list[Notice] = []
    skipped: list[str] = []
    for directory in build_directory_chain(eval_path, repo_root):
        config_path = os.path.join(directory, ".agentv", "config.yaml")
        if not fs.exists(config_path):
            continue
        problem = _config_problem(config_path, fs)
        if isinstance(problem, Notice):
            notices.append(problem)
            skipped.append(config_path)
            continue
        return ConfigLookup(config_path, problem, tuple(notices), tuple(skipped))
    return ConfigLookup(None, None, tuple(notices), tuple(skipped))


def _config_problem(config_path: str, fs: FileSystem) -> Notice | tuple[str, ...] | None:
    """The config's patterns, or the Notice explaining why it is skipped."""
    try:
        text = fs.read_text(config_path)
    except FileReadError as exc:
        return _notice(
            "config-unreadable", f"Could not read .agentv/config.yaml at {config_path}: {exc}", config_path
        )
    doc = parse_yaml(text)
    if doc.error is not None:
        return _notice(
            "config-unreadable",
            f"Could not read .agentv/config.yaml at {config_path}: {doc.error.describe()}",
            config_path,
        )
    parsed = doc.value
    if not isinstance(parsed, dict):
        return _notice("config-invalid", f"Invalid .agentv/config.yaml format at {config_path}", config_path)
    schema = parsed.get("$schema")
    if schema != SCHEMA_CONFIG_V2:
        if isinstance(schema, str):
            message = f"Invalid $schema value '{schema}' in {config_path}. Expected '{SCHEMA_CONFIG_V2}'"
        else:
            message = (
                f"Missing required field '$schema' in {config_path}.\n"
                f"Please add '$schema: {SCHEMA_CONFIG_V2}' at the top of the file."
            )
        return _notice("config-schema", message, config_path, ("$schema",))
    if "guideline_patterns" not in parsed:
        return None
    patterns = parsed["guideline_patterns"]
    if not isinstance(patterns, list):
        return _notice(
            "config-patterns-invalid",
            f"Invalid guideline_patterns in {config_path}, expected array",
            config_path,
            ("guideline_patterns",),
        )
    if not all(isinstance(p, str) for p in patterns):
        return _notice(
            "config-patterns-invalid",
            f"Invalid guideline_patterns in {config_path}, all entries must be strings",
            config_path,
            ("guideline_patterns",),
        )
    return tuple(patterns)


def _notice(code: str, message: str, config_path: str, yaml_path: tuple[str, ...] = ()) -> Notice:
    return Notice(code=code, message=message, file=config_path, yaml_path=yaml_path)


def is_guideline_file(path: str, patterns: tuple[str, ...] | None) -> bool:
    """`isGuidelineFile`: backslashes become '/', then micromatch with no options."""
    return matching_pattern(path, patterns) is not None


# A suite names the same few files in case after case, and several checks ask about each.
@functools.lru_cache(maxsize=16_384)
def matching_pattern(path: str, patterns: tuple[str, ...] | None) -> str | None:
    """The first guideline pattern that `isGuidelineFile` matches `path` with, or None."""
    if not patterns:
        return None
    return first_match(path.replace("\\", "/"), patterns)
