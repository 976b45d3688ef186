"""Find the JSON-schema node that describes a YAML path (for hover and completion)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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


def walk_schema(
    root: dict[str, Any],
    path: YamlPath,
    resolve: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]],
    candidates: Callable[[dict[str, Any], dict[str, Any]], list[dict[str, Any]]],
) -> dict[str, Any] | None:
    """The node of `root` that describes `path`: `items` for an index, `properties` for a key,
    looked up through every branch `candidates` yields (shared with the 4.x schema)."""
    node: dict[str, Any] | None = root
    for item in path:
        if node is None:
            return None
        found: dict[str, Any] | None = None
        for candidate in candidates(resolve(node, root), root):
            if isinstance(item, int) and isinstance(candidate.get("items"), dict):
                found = resolve(candidate["items"], root)
                break
            props = candidate.get("properties", {})
            if isinstance(item, str) and isinstance(props.get(item), dict):
                found = resolve(props[item], root)
                break
        node = found
    return node


def schema_for_path(kind: Any, path: YamlPath) -> dict[str, Any] | None:
    try:
        from agentv_lsp.schemas import load_schema

        root = load_schema(kind)
    except (OSError, KeyError, ValueError):
        return None
    return walk_schema(root, path, _resolve, _candidates)


def keys_for_path(kind: Any, path: YamlPath) -> dict[str, dict[str, Any]]:
    """Properties allowed in the mapping at `path`, with their schemas."""
    try:
        from agentv_lsp.schemas import load_schema

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
