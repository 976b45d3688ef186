"""Records js-tiktoken's o200k_base ids on every letter, number and mark Unicode 15.0 and 15.1 added
(unassigned in Python 3.11's Unicode 14.0 tables, assigned in Python 3.13's 15.1), each mixed with
ASCII, into js_tiktoken_unicode.json (tests/unit/test_diff_tokens.py): per group of characters, the
number of ids and their SHA-256 (`ids_digest`; the ids themselves would be half a megabyte).

Run with Python 3.13 (its unicodedata is the list) and node with js-tiktoken installed, e.g.
  npm install --prefix /tmp/jst js-tiktoken
  ~/.pyenv/versions/3.13.0/bin/python tests/unit/data/record_js_tiktoken_unicode.py /tmp/jst
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHARS_PER_TEXT = 16
NODE = r"""
const { Tiktoken } = require("js-tiktoken/lite");
const ranks = require("js-tiktoken/ranks/o200k_base");
const enc = new Tiktoken(ranks.default || ranks);
const texts = JSON.parse(require("fs").readFileSync(0, "utf8"));
const version = JSON.parse(require("fs").readFileSync("node_modules/js-tiktoken/package.json", "utf8")).version;
process.stdout.write(JSON.stringify({ version, node: process.version, unicode: process.versions.unicode,
  ids: texts.map((t) => enc.encode(t)) }));
"""


def added_after_14() -> list[str]:
    older = subprocess.run(
        [
            str(Path.home() / ".pyenv/versions/3.11.7/bin/python"),
            "-c",
            "import unicodedata,sys;print(unicodedata.unidata_version);"
            "sys.stdout.write(''.join(chr(c) for c in range(0x110000) if unicodedata.category(chr(c))=='Cn'))",
        ],
        capture_output=True,
        text=True,
        check=True,
        encoding="utf-8",
        errors="surrogatepass",
    ).stdout
    version, unassigned = older.split("\n", 1)
    assert version == "14.0.0" and unicodedata.unidata_version == "15.1.0"
    gaps = set(unassigned)
    return [c for c in sorted(gaps) if unicodedata.category(c)[0] in "LNM"]


def template(c: str) -> str:
    """The character before ASCII punctuation and a letter (the issue's case), then a digit, then
    inside a word with a contraction: where a letter and a symbol split words differently."""
    return f"{c}:A{c}1 a{c}'s\n"


def group_text(chars: str) -> str:
    return "".join(template(c) for c in chars)


def ids_digest(ids: list[int]) -> str:
    return hashlib.sha256(" ".join(map(str, ids)).encode()).hexdigest()


def main() -> None:
    modules = sys.argv[1]
    chars = added_after_14()
    groups = ["".join(chars[i : i + CHARS_PER_TEXT]) for i in range(0, len(chars), CHARS_PER_TEXT)]
    texts = [group_text(g) for g in groups]
    out = subprocess.run(
        ["node", "-e", NODE],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        check=True,
        cwd=modules,
    ).stdout
    recorded = json.loads(out)
    (HERE / "js_tiktoken_unicode.json").write_text(
        json.dumps(
            {
                "recorded_with": f"js-tiktoken {recorded['version']} (node {recorded['node']}, Unicode {recorded['unicode']})",
                "letters": len(chars),
                "cases": [
                    [g, len(ids), ids_digest(ids)] for g, ids in zip(groups, recorded["ids"], strict=True)
                ],
            },
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
