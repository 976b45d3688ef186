"""YAML with source positions, read exactly as AgentV's YAML library (eemeli/yaml 2.9.1) reads it.

`document`: parse_yaml and the value rules; `eemeli`: the exact reader for what libyaml refuses
or misreads; `prescan`: which texts go to it; `keytext`: collection keys as eemeli/yaml writes
them; `scalars`: plain scalars and JSON.stringify as JavaScript sees them.
"""

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
