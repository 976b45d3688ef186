"""The v2 JSON schemas (eval, config and targets files: `agentv_lsp.engine.schemas`) read at a YAML
path, for hover and completion."""

from __future__ import annotations

from typing import Any

from agentv_lsp.lsp.schema_nav import walk_schema
from agentv_lsp.yamlpos import Path as YamlPath


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema and schema["$ref"].startswith("#/$defs/"):
        schema = root["$defs"][schema["$ref"].split("/")[-1]]
    return schema


def _candidates(schema: dict[str, Any], root: dict[str, Any]) -> list[dict[str, Any]]:
    """The schema and every branch it may use (allOf/then, anyOf, oneOf)."""
    out = [schema]
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(key, []):
            if isinstance(branch, dict):
                target = branch.get("then", branch)
                if isinstance(target, dict):
                    out.extend(_candidates(_resolve(target, root), root))
    return out


def schema_for_path(kind: Any, path: YamlPath) -> dict[str, Any] | None:
    try:
        from agentv_lsp.engine.schemas import load_schema

        root = load_schema(kind)
    except (OSError, KeyError, ValueError):
        return None
    return walk_schema(root, path, _resolve, _candidates)


def keys_for_path(kind: Any, path: YamlPath) -> dict[str, dict[str, Any]]:
    """Properties allowed in the mapping at `path`, with their schemas."""
    try:
        from agentv_lsp.engine.schemas import load_schema

        root = load_schema(kind)
    except (OSError, KeyError, ValueError):
        return {}
    node = schema_for_path(kind, path)
    if node is None:
        return {}
    keys: dict[str, dict[str, Any]] = {}
    for candidate in _candidates(_resolve(node, root), root):
        for name, sub in candidate.get("properties", {}).items():
            if isinstance(sub, dict) and name not in keys:
                keys[name] = _resolve(sub, root)
    return keys
