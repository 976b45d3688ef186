"""eemeli/yaml 2.9.1 as AgentV 4.42.4 calls it (`parse(text, {merge: true})`), from the npm package
the oracle installs (`AGENTV4_MODULES`): what the recorded text sets of tests/yaml_suite are
recorded from and checked against, and the differential fuzzer's other reader."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

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
    """Why the live package cannot run here, or None when it can."""
    modules = os.environ.get("AGENTV4_MODULES")
    if not modules or not (Path(modules) / "yaml" / "dist" / "index.js").is_file():
        return "AGENTV4_MODULES (with the yaml package AgentV 4.42.4 installs) is not set"
    if shutil.which("node") is None:
        return "node is not on PATH"
    return None


def read_live(cases: Sequence[tuple[str, str]]) -> list[dict[str, object]]:
    """What eemeli/yaml gives each `(name, text)`: `{name, ok, json}` or `{name, ok, error}`,
    in one node process."""
    done = subprocess.run(
        ["node", "-e", _NODE, os.environ["AGENTV4_MODULES"]],
        input=json.dumps(list(cases)),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    # split at LF only: JSON.stringify leaves U+2028/U+2029 raw, which splitlines() breaks at
    return [json.loads(line) for line in done.stdout.split("\n") if line]


def print_recording(cases: Sequence[tuple[str, str]]) -> None:
    """A recording's JSONL on standard output (each text set's `python -m` entry)."""
    for record in read_live(cases):
        sys.stdout.write(json.dumps(record) + "\n")
