"""A grid of texts on one rule where libyaml and eemeli/yaml part: in block context, the further
lines of a quoted string or a flow collection must be indented more than the entries of the block
collection they belong to (the column of its keys, `?`, `:` or `-`), whatever stands before that
collection (an anchor or a tag on the line above, a comment, a blank line).

`block-indentation-eemeli-2.9.1.jsonl` is what eemeli/yaml 2.9.1 gives each text as AgentV 4.42.4
calls it (`parse(text, {merge: true})`), recorded from the npm package:

    AGENTV4_MODULES=... python -m tests.yaml_suite.block_indentation > tests/yaml_suite/block-indentation-eemeli-2.9.1.jsonl
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

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


_NODE = """
const path = require('node:path');
const { parse } = require(path.join(process.argv[1], 'yaml', 'dist', 'index.js'));
const cases = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
for (const [name, text] of cases) {
  let out;
  try { const v = parse(text, { merge: true }); out = { name, ok: true, json: JSON.stringify(v === undefined ? null : v) ?? null }; }
  catch (e) { out = { name, ok: false, error: String(e.message).split('\\n')[0] }; }
  console.log(JSON.stringify(out));
}
"""


def live_unavailable() -> str | None:
    modules = os.environ.get("AGENTV4_MODULES")
    if not modules or not (Path(modules) / "yaml" / "dist" / "index.js").is_file():
        return "AGENTV4_MODULES (with the yaml package AgentV 4.42.4 installs) is not set"
    if shutil.which("node") is None:
        return "node is not on PATH"
    return None


def run_live() -> list[dict[str, object]]:
    """What eemeli/yaml gives each text, from the installed package (one node process)."""
    done = subprocess.run(
        ["node", "-e", _NODE, os.environ["AGENTV4_MODULES"]],
        input=json.dumps(texts()),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


if __name__ == "__main__":
    for record in run_live():
        sys.stdout.write(json.dumps(record) + "\n")
