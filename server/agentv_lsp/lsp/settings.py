"""Typed server settings from `initializationOptions.settings` and `workspace/configuration`
(section `agentv`). Bad values fall back to defaults with a message, never a crash."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentv_lsp.engine.files import DEFAULT_MAX_FILE_BYTES


@dataclass(frozen=True)
class Settings:
    trusted_workspace: bool = True
    max_file_size_kb: int = DEFAULT_MAX_FILE_BYTES // 1024
    code_lens: bool = True
    debounce_ms: int = 150
    problems: tuple[str, ...] = field(default=())  # what was wrong with the given values


def parse_settings(raw: Any) -> Settings:
    if raw is None:
        return Settings()
    if not isinstance(raw, dict):
        return Settings(problems=(f"settings must be an object, got {type(raw).__name__}",))
    problems: list[str] = []

    def pick(key: str, kind: type, default: Any, check: Any = None) -> Any:
        value: Any = raw
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if value is None:
            flat = raw.get(key)
            value = flat
        if value is None:
            return default
        if (kind is int and isinstance(value, bool)) or not isinstance(value, kind):
            problems.append(f"agentv.{key} must be a {kind.__name__}, got {value!r}; using {default!r}")
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
        debounce_ms=pick("preview.debounceMs", int, defaults.debounce_ms, lambda v: 0 <= v <= 5000),
        problems=tuple(problems),
    )
