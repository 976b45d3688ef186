"""Typed server settings, from `initializationOptions.settings` and `workspace/configuration`
(section `agentv`). Keys may be nested (`{"codeLens": {"enabled": false}}`) or dotted
(`{"codeLens.enabled": false}`). A bad value is reported and replaced by its default, never
a crash."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentv_lsp.engine.files import DEFAULT_MAX_FILE_BYTES


@dataclass(frozen=True)
class Settings:
    trusted_workspace: bool = True
    """`trustedWorkspace`: false reads nothing outside the workspace folders (referenced files,
    configs and targets files above the folders are treated as missing)."""
    max_file_size_kb: int = DEFAULT_MAX_FILE_BYTES // 1024
    """`maxFileSizeKb`: referenced files are read up to this size (KiB)."""
    code_lens: bool = True
    """`codeLens.enabled`: the "▶ Preview" and summary lenses above each case."""
    debounce_ms: int = 150
    """`preview.debounceMs`: quiet time after an edit before the document is checked again."""
    runtime: str = "auto"
    """`runtime`: which AgentV judges a file: "auto", "4" or "2" (`formats.runtime`)."""
    problems: tuple[str, ...] = field(default=(), compare=False)
    """What was wrong with the given values (shown to the user once)."""


_TYPE_NAMES = {bool: "true or false", int: "a whole number", str: "a string"}


def parse_settings(raw: Any) -> Settings:
    if raw is None:
        return Settings()
    if not isinstance(raw, dict):
        return Settings(
            problems=(f"settings must be an object, got {type(raw).__name__}; using the defaults",)
        )
    problems: list[str] = []

    def pick(key: str, kind: type, default: Any, check: Callable[[Any], bool] | None = None) -> Any:
        value: Any = raw
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if value is None:
            value = raw.get(key)
        if value is None:
            return default
        if (kind is int and isinstance(value, bool)) or not isinstance(value, kind):
            problems.append(f"agentv.{key} must be {_TYPE_NAMES[kind]}, got {value!r}; using {default!r}")
            return default
        if check is not None and not check(value):
            problems.append(f"agentv.{key} = {value!r} is out of range; using {default!r}")
            return default
        return value

    defaults = Settings()
    return Settings(
        trusted_workspace=pick("trustedWorkspace", bool, defaults.trusted_workspace),
        max_file_size_kb=pick(
            "maxFileSizeKb", int, defaults.max_file_size_kb, lambda v: 1 <= v <= 1024 * 1024
        ),
        code_lens=pick("codeLens.enabled", bool, defaults.code_lens),
        debounce_ms=pick("preview.debounceMs", int, defaults.debounce_ms, lambda v: 0 <= v <= 10_000),
        runtime=pick("runtime", str, defaults.runtime, lambda v: v in ("auto", "2", "4")),
        problems=tuple(problems),
    )
