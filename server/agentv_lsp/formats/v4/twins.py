"""One finding per mistake: a misspelt key and the required key it was meant to be.

Deleting a letter of `input:` makes two findings of one mistake: the unknown field `inpt`
("Did you mean 'input'?") and the test missing its `input` (validate's error, into which the
runtime's "Skipping incomplete test" is folded). They become one finding at the misspelt key,
the most precise place, whose "Change to 'input'" quick fix mends both; its message keeps
every fact once, its severity the higher of the two, and `data["locations"]` the AgentV
location the missing key's finding had (so a comparison with `agentv validate` still finds
that location reported)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from agentv_lsp.checks.model import SEVERITY_RANK, Diagnostic
from agentv_lsp.yamlpos import YamlDocument

# findings naming a key the runtime ignores, with the known key it was probably meant to be
_MISSPELT_CODES = frozenset(("v4-unknown-field", "v4-schema-unknown-key"))
# codes whose finding is about a missing key: their path ends on that key (`tests[0].input`)
# or, for the runtime's skip, names the test and lists what it lacks in `data["missing"]`
_SKIPPED = "v4-skipped-test"


def merge_misspelt_twins(diagnostics: list[Diagnostic], doc: YamlDocument | None) -> list[Diagnostic]:
    """`diagnostics` with each misspelt-key finding merged with the finding of the required
    key it names (absent from the same mapping); the rest unchanged, in order."""
    if doc is None or doc.error is not None:
        return diagnostics
    out: list[Diagnostic | None] = list(diagnostics)
    by_path: dict[tuple[Any, ...], list[int]] = {}  # the other findings, by place (one lookup each)
    for i, d in enumerate(diagnostics):
        if d.code not in _MISSPELT_CODES:
            by_path.setdefault(d.yaml_path, []).append(i)
    for index, misspelt in enumerate(diagnostics):
        suggestion = misspelt.data.get("suggestion")
        if misspelt.code not in _MISSPELT_CODES or not isinstance(suggestion, str) or not misspelt.yaml_path:
            continue
        base = misspelt.yaml_path[:-1]
        mapping = _value_at(doc.value, base)
        if not isinstance(mapping, dict) or suggestion in mapping:
            continue
        candidates = [*by_path.get((*base, suggestion), ()), *by_path.get(base, ())]
        twin = next(
            (i for i in candidates if out[i] is not None and _is_missing(out[i], base, suggestion)), None
        )
        if twin is None:
            continue
        host = out[twin]
        assert host is not None
        out[index], out[twin] = _merged(misspelt, host), None
    return [d for d in out if d is not None]


def _is_missing(d: Diagnostic | None, base: tuple[Any, ...], key: str) -> bool:
    if d is None:
        return False
    if d.yaml_path == (*base, key):
        return True
    if d.code == _SKIPPED and d.yaml_path == base:
        missing = d.data.get("missing")
        names = (
            {n for field in missing for n in re.split(r", | or ", str(field))}
            if isinstance(missing, list)
            else set()
        )
        return key in names
    return False


def _merged(misspelt: Diagnostic, missing: Diagnostic) -> Diagnostic:
    severity = min((misspelt.severity, missing.severity), key=SEVERITY_RANK.__getitem__)  # 0: error
    locations = [*misspelt.data.get("locations", []), missing.path]
    data = {
        **misspelt.data,
        "merged": [*misspelt.data.get("merged", []), missing.code],
        "locations": locations,
    }
    return dataclasses.replace(
        misspelt,
        severity=severity,
        message=f"{misspelt.message} — {missing.message}",
        data=data,
        related=misspelt.related + missing.related,
        unnecessary=False,  # the key is not noise to fade: it is the test's missing key
    )


def _value_at(value: Any, path: tuple[Any, ...]) -> Any:
    for item in path:
        found = (isinstance(value, dict) and item in value) or (
            isinstance(value, list) and isinstance(item, int) and 0 <= item < len(value)
        )
        if not found:
            return None
        value = value[item]
    return value
