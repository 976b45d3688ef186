"""A grid of texts on one rule where libyaml and eemeli/yaml part: in block context, the further
lines of a quoted string or a flow collection must be indented more than the entries of the block
collection they belong to (the column of its keys, `?`, `:` or `-`), whatever stands before that
collection (an anchor or a tag on the line above, a comment, a blank line).

`block-indentation-eemeli-2.9.1.jsonl` is what eemeli/yaml 2.9.1 gives each text as AgentV 4.42.4
calls it (`parse(text, {merge: true})`), recorded from the npm package:

    AGENTV4_MODULES=... python -m tests.yaml_suite.block_indentation > tests/yaml_suite/block-indentation-eemeli-2.9.1.jsonl
"""

from __future__ import annotations

from pathlib import Path

from tests.yaml_suite.eemeli_live import print_recording

HERE = Path(__file__).resolve().parent
RECORDING = HERE / "block-indentation-eemeli-2.9.1.jsonl"

# (name, lines with {I} for the collection's indentation and {V} for the value)
_ENTRIES = (
    ("implicit-key", "{I}k: {V}"),
    ("second-key", "{I}j: 0\n{I}k: {V}"),
    ("explicit-key", "{I}? k\n{I}: {V}"),
    ("explicit-key-only", "{I}? {V}"),
    ("anchored-key", "{I}&n k: {V}"),
    ("item", "{I}- {V}"),
    ("item-in-item", "{I}- - {V}"),
    ("key-in-item", "{I}- k: {V}"),
    ("explicit-key-in-item", "{I}- ? k\n{I}  : {V}"),
)
# (name, text before the collection, the collection's indentation)
_PARENTS = (
    ("root", "", ""),
    ("under-a-key", "top:\n", "  "),
    ("anchor-above", "top: &a\n", "  "),
    ("anchor-comment-blank-above", "top: &a # c\n\n", "  "),
    ("tag-above", "top: !!{kind}\n", "  "),
    ("anchor-and-tag-above", "top: &a\n  !!{kind}\n", "  "),
    ("deeper", "top:\n  mid:\n", "    "),
)
_VALUES = (
    ("double", '"x\n{S}y"'),
    ("single", "'x\n{S}y'"),
    ("flow-seq", "[x,\n{S}y]"),
    ("flow-map", "{{a: 1,\n{S}b: 2}}"),
)


def texts() -> list[tuple[str, str]]:
    """(name, text) for every combination, the continuation line indented 0 to 7 spaces."""
    out = []
    for entry, shape in _ENTRIES:
        kind = "seq" if entry.startswith("item") else "map"
        for parent, head, indent in _PARENTS:
            for value, template in _VALUES:
                for spaces in range(8):
                    text_value = template.replace("{S}", " " * spaces).replace("{{", "{").replace("}}", "}")
                    text = head.replace("{kind}", kind) + shape.replace("{I}", indent).replace(
                        "{V}", text_value
                    )
                    out.append((f"{entry}/{parent}/{value}/{spaces}", text + "\n"))
    return out


if __name__ == "__main__":
    print_recording(texts())
