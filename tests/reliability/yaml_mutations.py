"""A mutation differential for the YAML layer: real texts (the YAML test suite's inputs, the eval
files of tests/golden*, and ../shared/corpus when it is there) mutated at the scanner's corners
(tabs, indentation shifts, directives, document markers, BOMs, line ends including a lone CR,
quoting, tags, merge keys, explicit keys), each read by eemeli/yaml 2.9.1 as AgentV calls it (one
node process) and by our 4.x loader's reader (`parse_yaml_value`), disagreements grouped by
class and shrunk. yaml_differential.py beside it generates texts from a grammar instead.

    AGENTV4_MODULES=... python -m tests.reliability.yaml_mutations --texts 3000 --seed 1

What it finds is recorded from the package in tests/yaml_suite/differential-eemeli-2.9.1.jsonl.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.reliability.yaml_differential import Found, Runtime, classify, ours, shrink
from tests.yaml_suite.eemeli_live import live_unavailable

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
MAX_SOURCE_CHARS = 4000  # a longer file is cut at a line end: mutants stay quick to read and shrink


def sources() -> list[str]:
    """The texts to mutate, in a fixed order (the seed decides the rest)."""
    paths = sorted((ROOT / "tests" / "yaml_suite" / "data").glob("*/in.yaml"))
    for folder in ("golden", "golden_v4", "oracle_v4"):
        paths += sorted((ROOT / "tests" / folder).rglob("*.y*ml"))
    if CORPUS.is_dir():
        paths += sorted(CORPUS.rglob("*.y*ml"))
    texts = []
    for path in paths:
        try:
            text = path.read_bytes()[: MAX_SOURCE_CHARS * 2].decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if len(text) > MAX_SOURCE_CHARS:
            text = text[: text.rfind("\n", 0, MAX_SOURCE_CHARS) + 1]
        if text.strip():
            texts.append(text)
    return texts


# -- mutations: each takes the text and a random source, gives a new text -------------------------


def _line_starts(text: str) -> list[int]:
    return [0] + [i + 1 for i, c in enumerate(text) if c == "\n" and i + 1 < len(text)]


def _at_line_start(insert: str) -> Callable[[str, random.Random], str]:
    def mutate(text: str, rng: random.Random) -> str:
        at = rng.choice(_line_starts(text))
        return text[:at] + insert + text[at:]

    return mutate


def _after_indentation(text: str, rng: random.Random) -> int:
    at = rng.choice(_line_starts(text))
    while at < len(text) and text[at] == " ":
        at += 1
    return at


def _tab_after_indentation(text: str, rng: random.Random) -> str:
    at = _after_indentation(text, rng)
    return text[:at] + "\t" + text[at:]


def _space_to_tab(text: str, rng: random.Random) -> str:
    spaces = [i for i, c in enumerate(text) if c == " "]
    if not spaces:
        return text + "\t"
    at = rng.choice(spaces)
    return text[:at] + "\t" + text[at + 1 :]


def _shift_indentation(text: str, rng: random.Random) -> str:
    at = rng.choice(_line_starts(text))
    if text[at : at + 1] == " " and rng.random() < 0.5:
        return text[:at] + text[at + 1 :]
    return text[:at] + " " + text[at:]


def _tab_only_line(text: str, rng: random.Random) -> str:
    return _at_line_start(rng.choice(("\t\n", " \t\n", "\t \n", "  \n")))(text, rng)


def _line_end(text: str, rng: random.Random) -> str:
    breaks = [i for i, c in enumerate(text) if c == "\n"]
    if not breaks:
        return text + "\r"
    at = rng.choice(breaks)
    return text[:at] + rng.choice(("\r", "\r\n", "\u2028", "\u0085", "")) + text[at + 1 :]


def _bom(text: str, rng: random.Random) -> str:
    at = rng.choice((0, 0, rng.randrange(len(text) + 1), rng.choice(_line_starts(text))))
    return text[:at] + "\ufeff" + text[at:]


def _insert_anywhere(choices: tuple[str, ...]) -> Callable[[str, random.Random], str]:
    def mutate(text: str, rng: random.Random) -> str:
        at = rng.randrange(len(text) + 1)
        return text[:at] + rng.choice(choices) + text[at:]

    return mutate


def _before_a_value(choices: tuple[str, ...]) -> Callable[[str, random.Random], str]:
    def mutate(text: str, rng: random.Random) -> str:
        spots = [i + 2 for i in range(len(text) - 1) if text[i : i + 2] in (": ", "- ")]
        if not spots:
            return rng.choice(choices) + text
        at = rng.choice(spots)
        return text[:at] + rng.choice(choices) + text[at:]

    return mutate


def _quote_a_value(text: str, rng: random.Random) -> str:
    spots = [i + 2 for i in range(len(text) - 1) if text[i : i + 2] == ": "]
    if not spots:
        return '"' + text
    at = rng.choice(spots)
    end = text.find("\n", at)
    end = len(text) if end < 0 else end
    quote = rng.choice(("'", '"'))
    value = text[at:end]
    if quote == '"' and rng.random() < 0.5:
        value = rng.choice(("\\ud800", "\\U00110000", "\\x41\\u00e9", "\\\n", "\\t", "a\\"))
    return text[:at] + quote + value + quote + text[end:]


def _explicit_key(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    keyed = [n for n, line in enumerate(lines) if ": " in line or line.endswith(":")]
    if not keyed:
        return "? " + text
    n = rng.choice(keyed)
    line = lines[n]
    indent = len(line) - len(line.lstrip(" "))
    key, _, value = line.partition(":")
    lines[n] = f"{' ' * indent}? {key.strip()}\n{' ' * indent}:{value}"
    return "\n".join(lines)


def _merge_key(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    keyed = [n for n, line in enumerate(lines) if ": " in line]
    if not keyed:
        return "&m {a: 1}\n" + text
    n = rng.choice(keyed)
    indent = " " * (len(lines[n]) - len(lines[n].lstrip(" ")))
    what = rng.choice(("*m", "[*m, {z: 1}]", "{q: 1}", "*m1", "1"))
    lines.insert(n, f"{indent}<<: {what}")
    m = rng.choice(keyed)
    lines[m] = lines[m].replace(": ", ": &m ", 1)
    return "\n".join(lines)


def _delete_char(text: str, rng: random.Random) -> str:
    at = rng.randrange(len(text))
    return text[:at] + text[at + 1 :]


def _duplicate_line(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    n = rng.randrange(len(lines))
    lines.insert(n, lines[n])
    return "\n".join(lines)


MUTATIONS: tuple[Callable[[str, random.Random], str], ...] = (
    _tab_after_indentation,
    _space_to_tab,
    _shift_indentation,
    _tab_only_line,
    _line_end,
    _bom,
    _at_line_start("%YAML 1.1\n---\n"),
    _at_line_start("%YAML 1.2\n"),
    _at_line_start("%YAML 2.0\n---\n"),
    _at_line_start("%TAG !e! tag:e.com,2000:\n---\n"),
    _at_line_start("---\n"),
    _at_line_start("...\n"),
    _at_line_start("# c\n"),
    _at_line_start("- "),
    _insert_anywhere(
        (
            "#",
            " #",
            "\t#",
            "'",
            '"',
            "[",
            "]",
            "{",
            "}",
            ",",
            ":",
            "? ",
            "-",
            "|",
            ">",
            "|2",
            ">1-",
            "&a ",
            "*a",
        )
    ),
    _before_a_value(
        (
            "!!str ",
            "!!binary ",
            "!!set ",
            "!!omap ",
            "!!merge ",
            "!!timestamp ",
            "! ",
            "!e!x ",
            "!!int ",
            "&a ",
            "*a ",
            "|\n",
            ">-\n",
            "{\n",
            "[\n",
        )
    ),
    _quote_a_value,
    _explicit_key,
    _merge_key,
    _delete_char,
    _duplicate_line,
)


def mutants(count: int, at_seed: int, pool: list[str]) -> list[str]:
    """`count` texts, each a source with one to three mutations."""
    rng = random.Random(at_seed)
    out = []
    for _ in range(count):
        text = rng.choice(pool)
        for _ in range(rng.choice((1, 1, 2, 3))):
            text = rng.choice(MUTATIONS)(text, rng)
        out.append(text)
    return out


# Classes left alone beyond yaml_differential's KNOWN_LEFT (recorded as strict xfails in
# differential_regressions.py): what eemeli/yaml passes over after an explicit key (`? k`)
# when it is no whole node to PyYAML's scanner (an unclosed bracket or quote): we refuse a
# text it reads. (Reading otherwise, or refusing what it reads otherwise, counts.)
_EXPLICIT_KEY = re.compile(r"^[ \t-]*\?(?:[ \t]|$)", re.MULTILINE)
LEFT: tuple[tuple[str, Callable[[str, str], bool]], ...] = (
    (
        "after an explicit key",
        lambda text, cls: cls.startswith("we reject") and _EXPLICIT_KEY.search(text) is not None,
    ),
)


def classify_mutant(text: str, theirs: dict[str, object], mine: dict[str, object]) -> str | None:
    """The class of a disagreement (None when both agree); "left: ..." for the classes left."""
    cls = classify(text, theirs, mine)
    if cls is None or cls.startswith("left: "):
        return cls
    for name, applies in LEFT:
        if applies(text, cls):
            return f"left: {name}: {cls}"
    return cls


def run(
    texts: int, at_seed: int, batch: int = 500, shrink_them: bool = True, seconds: float | None = None
) -> tuple[int, int, dict[str, Found]]:
    """Compare `texts` mutants; (compared, agreeing, classes found with their smallest text)."""
    pool = sources()
    runtime = Runtime()
    found: dict[str, Found] = {}
    done = agree = 0
    start = time.monotonic()
    try:
        round_ = 0
        while done < texts and (seconds is None or time.monotonic() - start < seconds):
            chunk = mutants(min(batch, texts - done), at_seed * 1_000_003 + round_, pool)
            round_ += 1
            for text, theirs in zip(chunk, runtime.read(chunk), strict=True):
                mine = _ours_guarded(text)
                cls = classify_mutant(text, theirs, mine)
                if cls is None:
                    agree += 1
                    continue
                if cls in found:
                    found[cls].count += 1
                    if len(text) < len(found[cls].example):
                        found[cls].example, found[cls].theirs, found[cls].mine = text, theirs, mine
                else:
                    found[cls] = Found(cls, 1, text, theirs, mine)
            done += len(chunk)
        if shrink_them:
            for f in found.values():

                def same_class(t: str, cls: str = f.cls) -> bool:
                    return classify_mutant(t, runtime.read([t])[0], _ours_guarded(t)) == cls

                f.example = shrink(f.example, same_class, budget=600, seconds=8)
                f.theirs, f.mine = runtime.read([f.example])[0], _ours_guarded(f.example)
    finally:
        runtime.close()
    return done, agree, found


def _ours_guarded(text: str) -> dict[str, object]:
    """`ours`, with an internal error as its own outcome (it must never happen: a class of its own)."""
    try:
        return ours(text)
    except Exception as exc:
        return {"ok": True, "json": f"<internal error {type(exc).__name__}: {exc}>"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--no-shrink", action="store_true")
    args = parser.parse_args()
    why = live_unavailable()
    if why:
        print(f"cannot run: {why}", file=sys.stderr)
        return 2
    start = time.monotonic()
    done, agree, found = run(args.texts, args.seed, shrink_them=not args.no_shrink, seconds=args.seconds)
    left = [f for f in found.values() if f.cls.startswith("left: ")]
    print(
        f"{agree}/{done} mutants read alike (seed {args.seed}, {time.monotonic() - start:.0f} s); "
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
