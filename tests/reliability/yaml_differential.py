"""Differential fuzzer: our YAML layer (`agentv_lsp.yamlpos.parse_yaml`) against eemeli/yaml 2.9.1
as AgentV 4.42.4 calls it (`parse(text, {merge: true})`), on grammar-shaped YAML texts.

Hypothesis strategies write texts (block mappings and sequences at varied indentation, compact
nesting, explicit keys, multi-line flow collections, every scalar style with escapes and several
lines, anchors, aliases, merge keys, tags, comments, blank lines, tabs, document markers,
directives, BOM, CRLF, trailing spaces, duplicate keys, core-schema numbers) plus a few byte-level
mutations of them. Batches go to one node process running the installed package; each text must
load where it loads with the same value (JSON.stringify, key order included) and fail where it
fails. Disagreements are grouped into classes and the first of each class shrunk to a small
reproducer.

    AGENTV4_MODULES=/root/.cache/agentv-lsp-oracle/agentv4/node_modules \\
        python -m tests.reliability.yaml_differential --seconds 300 --seed 1
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from tests.yaml_suite.eemeli_live import live_unavailable

# -- the texts ---------------------------------------------------------------------------------

_PLAIN_WORDS = (
    "x",
    "a b",
    "k",
    "id",
    "0",
    "1",
    "-1",
    "+1",
    "012",
    "0o17",
    "0x1F",
    "0xg",
    "1_000",
    "1e3",
    "1E+3",
    ".5",
    "5.",
    "-0",
    "-0.0",
    ".inf",
    "-.Inf",
    ".NAN",
    ".nan",
    "~",
    "null",
    "Null",
    "NULL",
    "true",
    "True",
    "FALSE",
    "yes",
    "on",
    "2001-12-14",
    "1:20",
    "a:b",
    "a :b",
    ":x",
    "-x",
    "?x",
    "a#b",
    "a -b",
    "é",
    "😀",
    "a'b",
    'a"b',
    "\\n",
    "%x",
    "@x",
    "`x",
    "<<",
    "=",
    "!x",
    "&x",
    "*x",
    "a,b",
    "[x",
    "x]",
    "{x",
    "x}",
    "0b101",
    "1.5e-3",
    "0.",
    "+.inf",
    "00",
    "0o8",
    "1__0",
    "-",
    "--",
    "---x",
)
_KEYS = ("k", "a", "b", "id", "<<", "1", "null", "true", "x y", "-k", "a:b", "'q'", '"d"', "~", "0x1")
_TAGS = (
    "!!str",
    "!!int",
    "!!float",
    "!!bool",
    "!!null",
    "!!map",
    "!!seq",
    "!!binary",
    "!local",
    "!",
    "!<tag:yaml.org,2002:str>",
    "!e!x",
    "!!set",
    "!!omap",
    "!!timestamp",
    "!!pairs",
)
_ESCAPES = (
    "\\n",
    "\\t",
    "\\\\",
    '\\"',
    "\\x41",
    "\\u00e9",
    "\\U0001F600",
    "\\/",
    "\\ ",
    "\\_",
    "\\N",
    "\\L",
    "\\P",
    "\\0",
    "\\e",
    "\\a",
    "\\b",
    "\\v",
    "\\f",
    "\\r",
    "\\q",
    "\\x4",
    "\\u12",
    "\\\t",
)
_COMMENTS = ("", "", "", " # c", "  #c", " #", "\t# t", "#glued")

_plain = st.sampled_from(_PLAIN_WORDS)


@st.composite
def _double(draw: st.DrawFn, indent: int) -> str:
    parts = draw(
        st.lists(st.one_of(_plain, st.sampled_from(_ESCAPES), st.sampled_from(("\n", "\\\n"))), max_size=5)
    )
    pad = " " * draw(st.integers(0, indent + 3))
    body = "".join(p + pad if p.endswith("\n") else p for p in parts)
    return '"' + body + '"'


@st.composite
def _single(draw: st.DrawFn, indent: int) -> str:
    parts = draw(st.lists(st.one_of(_plain, st.sampled_from(("''", "\n", "\n\n", " "))), max_size=5))
    pad = " " * draw(st.integers(0, indent + 3))
    return "'" + "".join(p + pad if p.endswith("\n") else p for p in parts) + "'"


@st.composite
def _multiline_plain(draw: st.DrawFn, indent: int) -> str:
    words = draw(st.lists(_plain, min_size=1, max_size=3))
    pad = " " * draw(st.integers(max(0, indent - 1), indent + 3))
    return ("\n" + pad).join(words)


@st.composite
def _block_scalar(draw: st.DrawFn, indent: int) -> str:
    style = draw(st.sampled_from("|>"))
    indicator = draw(st.sampled_from(("", "", "-", "+", "1", "2", "-2", "2+", "0")))
    own = indent + draw(st.integers(0, 3))
    lines = draw(
        st.lists(
            st.tuples(
                st.integers(-1, 3), st.one_of(_plain, st.just(""), st.just("\t x"), st.just("# not c"))
            ),
            min_size=0,
            max_size=4,
        )
    )
    body = ""
    for extra, word in lines:
        body += "\n" + " " * max(0, own + extra) + word
    return style + indicator + draw(st.sampled_from(_COMMENTS)) + body


@st.composite
def _flow(draw: st.DrawFn, indent: int, depth: int) -> str:
    kind = draw(st.sampled_from("[{"))
    close = "]" if kind == "[" else "}"
    items = []
    for _ in range(draw(st.integers(0, 3))):
        item = draw(_flow_node(indent, depth - 1))
        if draw(st.integers(0, 3)) == 0:
            item = (
                draw(st.sampled_from(("", "? ", "&f "))) + item + ": " + draw(_flow_node(indent, depth - 1))
            )
        elif kind == "{" and draw(st.booleans()):
            item += draw(st.sampled_from((": ", ":", " : "))) + draw(_flow_node(indent, depth - 1))
        items.append(item)
    sep = draw(st.sampled_from((", ", ",", ",\n" + " " * (indent + 1), "\n" + " " * indent + ", ", " ,")))
    trailing = draw(st.sampled_from(("", "", ",", "\n" + " " * indent)))
    return kind + sep.join(items) + trailing + close


def _flow_node(indent: int, depth: int) -> st.SearchStrategy[str]:
    leaves = st.one_of(
        _plain,
        _single(indent),
        _double(indent),
        st.sampled_from(("*a", "&a x", "!!str 1", "!!int 7", "!t x", "-", "#", "''", '""')),
    )
    if depth <= 0:
        return leaves
    return st.one_of(leaves, _flow(indent, depth))


def _props(draw: st.DrawFn) -> str:
    out = ""
    if draw(st.integers(0, 6)) == 0:
        out += draw(st.sampled_from(("&a", "&b", "&a1", "&x:y"))) + " "
    if draw(st.integers(0, 6)) == 0:
        out += draw(st.sampled_from(_TAGS)) + " "
    return out


@st.composite
def _inline_value(draw: st.DrawFn, indent: int, depth: int) -> str:
    """A value that starts on the line of its key or dash."""
    value = draw(
        st.one_of(
            _plain,
            _plain,
            _single(indent),
            _double(indent),
            _multiline_plain(indent + 1),
            _block_scalar(indent + 1),
            _flow(indent + 1, min(depth, 2)),
            st.sampled_from(("*a", "*b", "*x", "", "!!null", "''")),
        )
    )
    return _props(draw) + value


@st.composite
def _node_after(draw: st.DrawFn, indent: int, depth: int, in_seq: bool = False) -> str:
    """What follows `key:` or `- `: an inline value, or a nested block collection (on the next
    lines, or compact on the same line for an item)."""
    choice = draw(st.integers(0, 5)) if depth > 0 else 0
    if choice <= 2:
        return draw(_inline_value(indent, depth))
    if choice == 3 and in_seq:  # compact: `- - x`, `- k: v`
        return draw(_block(indent + 2, depth - 1, compact=True))
    step = draw(st.sampled_from((0, 1, 2, 2, 3, 4))) if not in_seq else draw(st.sampled_from((1, 2, 2, 3)))
    props = _props(draw)
    between = draw(st.sampled_from(("", "", "\n", " # c\n", "\n" + " " * (indent + step) + "# c\n")))
    prefix = (props.rstrip() + between if props else between) if between.endswith("\n") else props.rstrip()
    if not prefix.endswith("\n"):
        prefix += "\n"
    return prefix + draw(_block(indent + step, depth - 1))


@st.composite
def _block(draw: st.DrawFn, indent: int, depth: int, compact: bool = False) -> str:
    """A block collection at column `indent` (its first line's indentation is left out when
    `compact`: it follows a `- ` on the same line)."""
    pad = " " * indent
    lines = []
    is_seq = draw(st.booleans())
    for n in range(draw(st.integers(1, 3))):
        lead = "" if (compact and n == 0) else pad
        if is_seq:
            lines.append(
                lead
                + "-"
                + draw(st.sampled_from((" ", " ", "  ", "\t")))
                + draw(_node_after(indent, depth, True))
            )
            continue
        shape = draw(st.integers(0, 7))
        key = draw(st.one_of(st.sampled_from(_KEYS), _plain))
        if shape == 0:  # explicit key, maybe with a value line
            k = draw(st.one_of(st.just(key), st.just("''"), _block_scalar(indent + 1), _flow(indent + 1, 1)))
            line = lead + "? " + k
            if draw(st.booleans()):
                line += (
                    "\n"
                    + pad
                    + ":"
                    + draw(st.sampled_from((" ", "  ", "\n" + pad + "  ")))
                    + draw(_inline_value(indent + 2, depth))
                )
            lines.append(line)
            continue
        if shape == 1:
            key = draw(st.one_of(_single(indent), _double(indent), _flow(indent, 0)))
        if shape == 2:
            key = draw(st.sampled_from(("&k ", "!!str ", "!!int ", "&k !t "))) + key
        colon = draw(st.sampled_from((": ", ": ", ":  ", ":\t", " : ", ":")))
        if colon == ":":
            lines.append(
                lead
                + key
                + ":"
                + draw(st.sampled_from(("", " # c")))
                + "\n"
                + draw(_block(indent + draw(st.sampled_from((0, 1, 2))), max(depth - 1, 0)))
            )
        else:
            lines.append(lead + key + colon + draw(_node_after(indent, depth)))
    sep = draw(st.sampled_from(("\n", "\n", "\n\n", "\n" + pad + "# c\n", "\n#\n", "\n \n")))
    return sep.join(lines)


@st.composite
def _document(draw: st.DrawFn) -> str:
    body = draw(
        st.one_of(
            _block(0, 3),
            _block(0, 3),
            _block(draw(st.integers(1, 3)), 2),
            _inline_value(0, 2),
            _flow(0, 3),
        )
    )
    head = draw(
        st.sampled_from(
            (
                "",
                "",
                "",
                "---\n",
                "--- ",
                "%YAML 1.2\n---\n",
                "%YAML 1.1\n---\n",
                "%TAG !e! tag:e,2000:\n---\n",
                "# top\n",
                "\n",
                "--- # c\n",
                "%FOO bar\n---\n",
            )
        )
    )
    tail = draw(
        st.sampled_from(("\n", "\n", "", "\n...\n", "\n---\n", "\n--- x\n", "\n# end", "\n\n", "\n... # c\n"))
    )
    text = head + body + tail
    # text-level changes
    if draw(st.integers(0, 9)) == 0:
        text = "\ufeff" + text
    if draw(st.integers(0, 7)) == 0:
        text = text.replace("\n", "\r\n")
    lines = text.split("\n")
    for _ in range(draw(st.integers(0, 2))):
        i = draw(st.integers(0, len(lines) - 1))
        change = draw(st.sampled_from(("trail", "tab-indent", "tab-trail", "dup", "blank", "delete-space")))
        if change == "trail":
            lines[i] += draw(st.sampled_from((" ", "  ", "\t")))
        elif change == "tab-indent":
            lines[i] = (
                "\t" + lines[i].lstrip(" ") if draw(st.booleans()) else lines[i].replace("  ", " \t", 1)
            )
        elif change == "tab-trail":
            lines[i] += "\t# t"
        elif change == "dup":
            lines.insert(i, lines[i])
        elif change == "blank":
            lines.insert(i, draw(st.sampled_from(("", " ", "\t", "   "))))
        elif lines[i].startswith(" "):
            lines[i] = lines[i][1:]
    text = "\n".join(lines)
    if draw(st.integers(0, 5)) == 0 and text:  # one byte-level mutation
        i = draw(st.integers(0, len(text)))
        text = (
            text[:i]
            + draw(st.sampled_from((" ", "\n", ":", "-", "#", "'", '"', "\t", "[", "?", ",", "&a ", "*a")))
            + text[i:]
        )
    return text


def generate(count: int, at_seed: int) -> list[str]:
    """`count` texts, the same for the same seed."""
    out: list[str] = []

    @seed(at_seed)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(_document())
    def collect(text: str) -> None:
        out.append(text)

    collect()
    return out


# -- the two readers ---------------------------------------------------------------------------

_NODE = r"""
const path = require('node:path');
const { parse } = require(path.join(process.argv[1], 'yaml', 'dist', 'index.js'));
const CIRCULAR = '<circular>';
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const texts = JSON.parse(line);
  const outs = texts.map((text) => {
    let v;
    try { v = parse(text, { merge: true }); }
    catch (e) { return { ok: false, code: e.code || e.name, error: String(e.message).split('\n')[0] }; }
    // an alias inside its own anchored node loads as a circular value
    try { return { ok: true, json: JSON.stringify(v === undefined ? null : v) ?? null }; }
    catch (e) { return { ok: true, json: CIRCULAR }; }
  });
  process.stdout.write(JSON.stringify(outs) + '\n');
});
"""


class Runtime:
    """One node process running eemeli/yaml; `read` sends a batch of texts, gets one outcome each."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            ["node", "-e", _NODE, os.environ["AGENTV4_MODULES"]],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,  # eemeli/yaml's warnings (unresolved tags...)
            text=True,
            encoding="utf-8",
        )

    def read(self, texts: list[str]) -> list[dict[str, object]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(texts) + "\n")
        self.proc.stdin.flush()
        return list(json.loads(self.proc.stdout.readline()))

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=10)


def ours(text: str) -> dict[str, object]:
    """Our reading as AgentV 4.42.4's loader sees it: `yamlpos.parse_yaml` (the v2 runtime's
    reading, merge keys off) under formats/v4's BOM and merge-key passes (`parse_yaml_value`)."""
    from agentv_lsp.formats.v4.runtime import LoadFailure
    from agentv_lsp.formats.v4.yamlmerge import parse_yaml_value
    from agentv_lsp.yamlpos.document import MERGE_VALUE
    from agentv_lsp.yamlpos.scalars import js_json_stringify

    try:
        value = parse_yaml_value(text, "fuzz.yaml")
    except LoadFailure as exc:
        return {"ok": False, "error": str(exc).split("\n")[0]}
    if value is MERGE_VALUE:  # a `!!merge` document, Symbol(<<): JSON.stringify gives undefined
        return {"ok": True, "json": None}
    try:
        return {"ok": True, "json": js_json_stringify(value)}
    except RecursionError:  # `&a [*a]`: a circular value, as eemeli/yaml loads it too
        return {"ok": True, "json": "<circular>"}


def disagreement(theirs: dict[str, object], mine: dict[str, object]) -> str | None:
    """The class of a disagreement, or None when both read the text alike."""
    if theirs["ok"] and mine["ok"]:
        return None if theirs["json"] == mine["json"] else "value differs"
    if theirs["ok"]:
        why = re.sub(r" at line \d+.*| \(.*", "", str(mine["error"]))[:60]
        return f"we reject ({why}), eemeli/yaml reads"
    if mine["ok"]:
        return f"we read, eemeli/yaml rejects ({theirs.get('code')})"
    return None


# Classes of disagreement left alone (the runtime's own quirk, or out of this layer's reach);
# a disagreeing text that one matches is counted under "left: <name>", apart from the others.
_COLLECTION_KEY = re.compile(r'[{,]"[\[{]')  # a key written as a collection's YAML text
_BOM_BEFORE_EXPLICIT_KEY = re.compile(r"^\ufeff[ \t]*\?(?:[ \t]|$)", re.MULTILINE)


def _left_bom(text: str, theirs: dict[str, object], mine: dict[str, object]) -> bool:
    # a BOM opening the document's first content line: formats/v4's yamlbom reads indentation
    # after it as eemeli/yaml does (none), and a `-` item there; not an explicit key, whose `:`
    # lines up with the `?` by other rules (`\ufeff  ? a\n  : b\n  c: 1` fails for eemeli/yaml)
    return _BOM_BEFORE_EXPLICIT_KEY.search(text) is not None


def _left_collection_key_text(text: str, theirs: dict[str, object], mine: dict[str, object]) -> bool:
    # a collection as a key whose text eemeli/yaml's stringifier writes over several lines
    # (it folds long and multi-line scalars by rules keytext.py does not all follow) or with a
    # comment it kept; a one-line key text without one must come out the same
    if not (theirs["ok"] and mine["ok"] and _COLLECTION_KEY.search(str(theirs["json"]))):
        return False
    return any("\n" in key or "#" in key for key in _object_keys(json.loads(str(theirs["json"]))))


def _object_keys(value: object) -> list[str]:
    keys: list[str] = []
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            keys.extend(current)
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return keys


_EXPLICIT_KEY = re.compile(r"^[ \t-]*\?(?:[ \t]|$)", re.MULTILINE)


def _left_after_explicit_key(text: str, theirs: dict[str, object], mine: dict[str, object]) -> bool:
    # after `? k` with no `:`, eemeli/yaml passes over lines that are no whole node to our
    # scanner (`? {''}\n '\n---`, an unclosed quote): we refuse what it reads; as
    # yaml_mutations' LEFT
    return bool(theirs["ok"]) and not mine["ok"] and _EXPLICIT_KEY.search(text) is not None


KNOWN_LEFT: tuple[tuple[str, Callable[[str, dict[str, object], dict[str, object]], bool]], ...] = (
    ("after an explicit key", _left_after_explicit_key),
    ("a BOM before an explicit key", _left_bom),
    ("the text of a collection key", _left_collection_key_text),
)


def classify(text: str, theirs: dict[str, object], mine: dict[str, object]) -> str | None:
    cls = disagreement(theirs, mine)
    if cls is None:
        return None
    for name, applies in KNOWN_LEFT:
        if applies(text, theirs, mine):
            return f"left: {name}: {cls}"
    return cls


# -- shrinking ---------------------------------------------------------------------------------


def shrink(text: str, still: Callable[[str], bool], budget: int = 300, seconds: float = 4) -> str:
    """Greedy: drop lines, then characters, while `still` holds (at most `budget` tries and
    about `seconds`)."""
    tries = 0
    stop = time.monotonic() + seconds
    for unit in ("line", "char"):
        changed = True
        while changed and tries < budget and time.monotonic() < stop:
            changed = False
            pieces = text.splitlines(keepends=True) if unit == "line" else list(text)
            i = 0
            while i < len(pieces) and tries < budget and time.monotonic() < stop:
                candidate = "".join(pieces[:i] + pieces[i + 1 :])
                tries += 1
                if candidate and still(candidate):
                    text, pieces, changed = candidate, pieces[:i] + pieces[i + 1 :], True
                else:
                    i += 1
    return text


@dataclass
class Found:
    cls: str
    count: int
    example: str
    theirs: dict[str, object]
    mine: dict[str, object]


def run(
    seconds: float, at_seed: int, batch: int = 500, max_texts: int | None = None, shrink_them: bool = True
) -> tuple[int, dict[str, Found]]:
    """Compare batches until `seconds` pass (or `max_texts` are done); the classes found."""
    runtime = Runtime()
    found: dict[str, Found] = {}
    done = 0
    start = time.monotonic()
    round_ = 0
    try:
        while time.monotonic() - start < seconds and (max_texts is None or done < max_texts):
            size = batch if max_texts is None else min(batch, max_texts - done)
            texts = generate(size, at_seed * 1_000_003 + round_)
            round_ += 1
            for text, theirs in zip(texts, runtime.read(texts), strict=True):
                mine = ours(text)
                cls = classify(text, theirs, mine)
                if cls is None:
                    continue
                if cls in found:
                    found[cls].count += 1
                    if len(text) < len(found[cls].example):
                        found[cls].example, found[cls].theirs, found[cls].mine = text, theirs, mine
                else:
                    found[cls] = Found(cls, 1, text, theirs, mine)
            done += len(texts)
        if shrink_them:
            for f in found.values():

                def same_class(t: str, cls: str = f.cls) -> bool:
                    return classify(t, runtime.read([t])[0], ours(t)) == cls

                f.example = shrink(f.example, same_class)
                f.theirs, f.mine = runtime.read([f.example])[0], ours(f.example)
    finally:
        runtime.close()
    return done, found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=500)
    args = parser.parse_args()
    why = live_unavailable()
    if why:
        print(f"cannot run: {why}", file=sys.stderr)
        return 2
    start = time.monotonic()
    done, found = run(args.seconds, args.seed, args.batch)
    left = [f for f in found.values() if f.cls.startswith("left: ")]
    print(
        f"{done} texts compared in {time.monotonic() - start:.0f} s (seed {args.seed}); "
        f"{len(found) - len(left)} classes of disagreement, {len(left)} more in classes left alone"
    )
    for f in sorted(found.values(), key=lambda f: (f.cls.startswith("left: "), -f.count)):
        print(f"\n== {f.cls}: {f.count} texts; smallest, shrunk:")
        print(f"   text:   {json.dumps(f.example)}")
        print(f"   eemeli: {json.dumps(f.theirs)}")
        print(f"   ours:   {json.dumps(f.mine)}")
    return 1 if len(found) > len(left) else 0


if __name__ == "__main__":
    sys.exit(main())
