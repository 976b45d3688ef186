"""The part of the 4.x JSON schema (schema/agentv-eval-v4.schema.json) that describes a YAML
path, for hover and completion. Eval files only: configs and targets files have no 4.x
schema here (their checks come from `formats.v4.validate`)."""

from __future__ import annotations

from typing import Any

from agentv_lsp.formats.v4.model import YamlPath
from agentv_lsp.lsp.schema_nav import walk_schema

Schema = dict[str, Any]


def _root() -> Schema | None:
    try:
        from agentv_lsp.formats.v4.schema import load_v4_schema

        return load_v4_schema()
    except (OSError, KeyError, ValueError, ImportError):
        return None


def _resolve(schema: Schema, root: Schema) -> Schema:
    seen = 0
    while "$ref" in schema and str(schema["$ref"]).startswith("#/$defs/") and seen < 32:
        schema = root["$defs"].get(str(schema["$ref"]).split("/")[-1], {})
        seen += 1
    return schema


def _candidates(schema: Schema, root: Schema, depth: int = 0) -> list[Schema]:
    """The schema and every branch it may use (allOf/anyOf/oneOf, if-then-else)."""
    out = [schema]
    if depth > 8:
        return out
    branches: list[Any] = []
    for key in ("allOf", "anyOf", "oneOf"):
        branches.extend(schema.get(key, []))
    for key in ("then", "else"):
        if isinstance(schema.get(key), dict):
            branches.append(schema[key])
    for branch in branches:
        if isinstance(branch, dict):
            target = branch.get("then", branch)
            if isinstance(target, dict):
                out.extend(_candidates(_resolve(target, root), root, depth + 1))
    return out


def schema_for_path(kind: Any, path: YamlPath) -> Schema | None:
    root = _root() if kind == "eval" else None
    if root is None:
        return None
    return walk_schema(root, path, _resolve, _candidates)


def keys_for_path(kind: Any, path: YamlPath) -> dict[str, Schema]:
    """Properties allowed in the mapping at `path`, with their schemas."""
    root = _root() if kind == "eval" else None
    node = schema_for_path(kind, path) if root is not None else None
    if root is None or node is None:
        return {}
    keys: dict[str, Schema] = {}
    for candidate in _candidates(_resolve(node, root), root):
        for name, sub in candidate.get("properties", {}).items():
            if isinstance(sub, dict) and name not in keys:
                keys[name] = _resolve(sub, root)
    return keys


def values_for(schema: Schema, root_kind: Any = "eval") -> list[tuple[str, str]]:
    """(value, description) suggested for a scalar: its enum, const or examples."""
    root = _root()
    out: list[tuple[str, str]] = []
    candidates = _candidates(_resolve(schema, root), root) if root is not None else [schema]
    for candidate in candidates:
        values = candidate.get("enum") or (
            [candidate["const"]] if "const" in candidate else candidate.get("examples") or []
        )
        descriptions = candidate.get("enumDescriptions") or []
        for i, value in enumerate(values):
            if isinstance(value, (str, int, float, bool)) and str(value) not in {v for v, _ in out}:
                out.append((str(value), str(descriptions[i]) if i < len(descriptions) else ""))
    return out
