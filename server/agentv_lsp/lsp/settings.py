"""Typed server settings, from `initializationOptions.settings` and `workspace/configuration`
(section `agentv`). Keys may be nested (`{"codeLens": {"enabled": false}}`) or dotted
(`{"codeLens.enabled": false}`). A bad value is reported and replaced by its default, never
a crash."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentv_lsp.checks.hidden_chars import AllowList, parse_allow_items
from agentv_lsp.checks.model import DEFAULT_MAX_DIAGNOSTICS
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
    max_diagnostics: int = DEFAULT_MAX_DIAGNOSTICS
    """`maxDiagnosticsPerFile`: diagnostics shown per file, errors first (0: all)."""
    check_budget_ms: int = 10_000
    """`checkTimeBudgetMs`: a check that takes longer stops; the file then gets what was found
    so far and a diagnostic saying it was too complex to check completely (0: no budget)."""
    hidden_allow: tuple[str, ...] = ()
    """`hiddenCharacters.allow`: hidden characters not reported (`hidden_chars`): code points
    such as "U+200F" or "U+2066..U+2069", or "all"."""
    eval_file_patterns: tuple[str, ...] = ()
    """`evalFilePatterns`: more names of AgentV 4.x eval files (globs on the path relative to the
    workspace folder, e.g. "**/EVAL.yaml"), as `check --eval-glob` (`formats.v4.discovery`)."""
    hidden_as_error: bool = False
    """`hiddenCharacters.asError`: hidden-character findings as errors (`check --hidden-as-error`)."""
    problems: tuple[str, ...] = field(default=(), compare=False)
    """What was wrong with the given values (shown to the user once)."""


def hidden_allow_list(settings: Settings) -> AllowList:
    """`hiddenCharacters.allow` as `CheckOptions.allow_hidden` takes it."""
    return parse_allow_items(settings.hidden_allow)


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
        value = _lookup(raw, key)
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
        max_diagnostics=pick(
            "maxDiagnosticsPerFile", int, defaults.max_diagnostics, lambda v: 0 <= v <= 10_000_000
        ),
        check_budget_ms=pick(
            "checkTimeBudgetMs", int, defaults.check_budget_ms, lambda v: 0 <= v <= 3_600_000
        ),
        hidden_allow=_string_list(raw, "hiddenCharacters.allow", problems),
        eval_file_patterns=_glob_list(raw, "evalFilePatterns", problems),
        hidden_as_error=pick("hiddenCharacters.asError", bool, defaults.hidden_as_error),
        problems=tuple(problems),
    )


def _lookup(raw: dict[str, Any], key: str) -> Any:
    """A setting by its nested (`{"codeLens": {"enabled": …}}`) or dotted key (None: not set)."""
    value: Any = raw
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return raw.get(key) if value is None else value


def _string_list(raw: dict[str, Any], key: str, problems: list[str]) -> tuple[str, ...]:
    """A list of strings (nested or dotted key); anything else is reported and ignored."""
    value = _lookup(raw, key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        problems.append(f'agentv.{key} must be a list of strings such as "U+200F", got {value!r}; using []')
        return ()
    unknown = [item for item in value if parse_allow_items([item]) == AllowList()]
    if unknown:
        problems.append(f'agentv.{key}: {unknown!r} are not code points (U+200F, U+2066..U+2069) or "all"')
    return tuple(value)


def _glob_list(raw: dict[str, Any], key: str, problems: list[str]) -> tuple[str, ...]:
    """A list of glob patterns (nested or dotted key); anything else is reported and ignored,
    and so is a pattern micromatch cannot use."""
    from agentv_lsp.engine.globs import pattern_problem

    value = _lookup(raw, key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        problems.append(
            f'agentv.{key} must be a list of glob patterns such as "**/EVAL.yaml", got {value!r}; using []'
        )
        return ()
    usable = []
    for pattern in value:
        problem = pattern_problem(pattern)
        if problem is None:
            usable.append(pattern)
        else:
            problems.append(f"agentv.{key}: {pattern!r} is ignored: {problem}")
    return tuple(usable)
