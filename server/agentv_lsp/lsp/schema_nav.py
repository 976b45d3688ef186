"""Find the JSON-schema node that describes a YAML path (for hover and completion), over each
format's schema: `lsp/v2/schema_nav.py`, `lsp/v4/schema_nav.py`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentv_lsp.yamlpos import Path as YamlPath


def walk_schema(
    root: dict[str, Any],
    path: YamlPath,
    resolve: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]],
    candidates: Callable[[dict[str, Any], dict[str, Any]], list[dict[str, Any]]],
) -> dict[str, Any] | None:
    """The node of `root` that describes `path`: `items` for an index, `properties` for a key,
    looked up through every branch `candidates` yields."""
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
