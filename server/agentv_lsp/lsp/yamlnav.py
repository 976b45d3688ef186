"""Where the cursor is in a positioned YAML tree: the JSON path of the node under it, and the
value at a path."""

from __future__ import annotations

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from agentv_lsp.yamlpos import Path as YamlPath


def _contains(node: Node, line: int, col: int) -> bool:
    start, end = node.start_mark, node.end_mark
    return (start.line, start.column) <= (line, col) <= (end.line, end.column)


def path_at(root: Node | None, line: int, col: int) -> tuple[YamlPath, bool]:
    """(path of the deepest node at the position, whether the position is on a key)."""
    path: list[str | int] = []
    node = root
    while node is not None:
        if isinstance(node, MappingNode):
            found = None
            for key, value in node.value:
                if isinstance(key, ScalarNode) and _contains(key, line, col):
                    return (*path, str(key.value)), True
                if _contains(value, line, col) and not (
                    value.start_mark.line == value.end_mark.line == line
                    and isinstance(value, ScalarNode)
                    and col < value.start_mark.column
                ):
                    found = (str(key.value) if isinstance(key, ScalarNode) else "", value)
            if found is None:
                break
            path.append(found[0])
            node = found[1]
        elif isinstance(node, SequenceNode):
            found_item = None
            for index, item in enumerate(node.value):
                if _contains(item, line, col):
                    found_item = (index, item)
            if found_item is None:
                break
            path.append(found_item[0])
            node = found_item[1]
        else:
            break
    return tuple(path), False


def value_at(value: object, path: YamlPath) -> object:
    """The JSON-like value at a path (None when the path does not exist)."""
    for item in path:
        if isinstance(value, dict) and isinstance(item, str):
            value = value.get(item)
        elif isinstance(value, list) and isinstance(item, int) and 0 <= item < len(value):
            value = value[item]
        else:
            return None
    return value
