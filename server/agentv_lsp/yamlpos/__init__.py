"""YAML with source positions and YAML 1.2 core-schema values (see `document`)."""

from agentv_lsp.yamlpos.document import (
    MAX_ALIAS_COUNT,
    MAX_DEPTH,
    Path,
    PathItem,
    Span,
    YamlDocument,
    YamlError,
    parse_yaml,
)

__all__ = [
    "MAX_ALIAS_COUNT",
    "MAX_DEPTH",
    "Path",
    "PathItem",
    "Span",
    "YamlDocument",
    "YamlError",
    "parse_yaml",
]
