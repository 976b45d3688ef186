"""Texts where the differential fuzzer (tests/reliability/yaml_differential.py) found our YAML
layer reading otherwise than eemeli/yaml 2.9.1, one group per class of disagreement, kept once
fixed so that none comes back.

`differential-eemeli-2.9.1.jsonl` is what eemeli/yaml 2.9.1 gives each text as AgentV 4.42.4
calls it (`parse(text, {merge: true})`), recorded from the npm package:

    AGENTV4_MODULES=... python -m tests.yaml_suite.differential_regressions > tests/yaml_suite/differential-eemeli-2.9.1.jsonl
"""

from __future__ import annotations

from pathlib import Path

from tests.yaml_suite.eemeli_live import print_recording

HERE = Path(__file__).resolve().parent
RECORDING = HERE / "differential-eemeli-2.9.1.jsonl"

# class -> texts (both outcomes where the class has both)
_GROUPS: dict[str, tuple[str, ...]] = {
    # `{merge: true}`: a plain `<<` key merges a mapping, an alias of one, or a sequence of them;
    # anything else fails; untagged `<<` keys are never duplicates (each is a fresh Symbol)
    "merge-key": (
        "a: &x {b: 1}\nc:\n  <<: *x\n  d: 2\n",
        "a: &x {b: 1}\nc:\n  d: 2\n  <<: [*x, {e: 1}]\n",
        "<<: [{a: 1}, {a: 2, b: 2}]\n",
        "x: &x {a: 1}\n<<: [*x, *x]\n",
        "x: &x [{a: 1}]\n<<: *x\n",
        "x: &x 1\n<<: *x\n",
        "<<:\n",
        "<<: 1\n",
        "<<: ''\n",
        "<<: [1]\n",
        "<<: [{a: 1}, 2]\n",
        "!!merge <<: {a: 1}\n",
        "!!str <<: 1\n",
        "!!str <<: {a: 1}\n!!str <<: {b: 1}\n",
        "'<<': 1\n",
        '"<<": {a: 1}\n',
        "<<: {}\n<<: {a: 1}\n",
        "<<: {a: 1}\n<<: {a: 2}\n",
        "<<: {a: 1}\na: 2\n",
        "a: 2\n<<: {a: 1}\n",
        "<<: {a: 1}\na: 2\na: 3\n",
        "{<<: {a: 1}, b: 2}\n",
        "- [<<: {a: 1}]\n",
        "- <<: {a: 1}\n  <<: {b: 2}\n",
        "<<: {2: x, a: 1}\n1: y\n",
        "? <<\n: {a: 1}\n",
        "<<: &y {a: 1}\nb: *y\n",
        "<<: {<<: {z: 1}, a: 1}\n",
        "<<: {a: 1, <<: {a: 2, b: 3}}\n",
        "%YAML 1.1\n---\n<<: {a: 1}\n",
        "<<: !!map {a: 1}\n",
        "base: &b\n  x: 1\n  y: 2\nitems:\n  - <<: *b\n    y: 3\n  - <<: *b\n",
    ),
    # a tab between `-` or `?` and the node's anchor or tag is indentation for eemeli/yaml
    "tab-before-properties": (
        "-\t&b\n",
        "-\t&b x\n",
        "- \t&b\n",
        "-\t!!str\n",
        "?\t&a x\n",
        "? \t!!str x\n",
        "- - \t&a x\n",
        "k:\n  -\t&a x\n",
        "-\t&a {x: 1}\n",
        "? \t&a k\n: v\n",
        "-\tx\n",
        "-\t\n",
        "k:\t&b\n",
        "k:\t&b x\n",
        "- &a\t!!str x\n",
        "-\t# c\n  &a x\n",
        "k: |\n  -\t&a x\n",
        "- a-\t&b\n",
    ),
    # `!!timestamp` on a text that is no date: the tag fails, and the document with it
    "timestamp-not-a-date": (
        "!!timestamp\n",
        "!!timestamp x\n",
        "!!timestamp 2001-12-14x\n",
        "- !!timestamp ''\n",
        "? !!timestamp x\n: 1\n",
        "!!timestamp 2001-12-14\n",
        "k: !!timestamp 2001-1-4 1:2:3\n",
        "k: !!timestamp 2001-12-14t21:59:43.10-05:00\n",
    ),
    # a comment glued to an opening bracket, as to a closing one, needs white space before it
    "comment-after-open-bracket": (
        '[#\n""]\n',
        "{#\na: 1}\n",
        "k: [#c\n  a]\n",
        "k: [ #c\n  a]\n",
        "k: a[#b\n",
        "k: '[#'\n",
        "k: |\n  [#x\n",
    ),
    # a flow mapping in a flow sequence, on lines of its own: its `:` is not the sequence's pair
    "flow-pair-in-nested-mapping": (
        "{'root': [{? '\n\n    ' : !!null 'null'}]}\n",
        "[?[\\\n ]:'',[]]\n",
        "[!!str {? 'a\n\n  ' : x}]\n",
        "[!!str {a\n b: x}]\n",
        "[!!str [{a\n b: x}]]\n",
        "[? 'a\n  b' : 1]\n",
        "[a\n b : 1]\n",
        "['a\n b' : 1]\n",
    ),
    # NaN === NaN is false in JavaScript: `.nan` keys are never duplicates (other numbers are)
    "nan-keys": (
        ".nan: {}\n.nan: {}\n",
        ".nan: 1\n.NaN: 2\n",
        "{.nan: 1, .nan: 2}\n",
        "- .nan: 1\n  .NAN: 2\n",
        ".inf: 1\n.inf: 2\n",
        "1: a\n1.0: b\n",
        "0x1: a\n1: b\n",
    ),
    # Left (see the report of the fuzzer's first runs): formats/v4/yamlmerge.py merges over the
    # merge-off reading of yamlpos, and these corners are out of its reach today. The tests mark
    # them as expected failures (strict: fixing one tells).
    "left-merge-corners": (
        # a quoted '<<' is an ordinary key beside a merge key, not its duplicate
        "<<: {a: 1}\n'<<': 2\n",
        # an anchored second `<<` is a merge key too, never a duplicate
        "<<: {}\n&k <<: {}\n",
        # merged keys become String(key): `~` gives "null", `[a, b]` gives "a,b"
        "<<: {~: 1, 1.0: 2, true: 3, [a, b]: 4, {c: d}: 5}\n",
    ),
    # a one-line key of a flow sequence pair whose `:` is on the next line: eemeli/yaml reads it
    # (only the key must be on one line); the exact reader wants key and `:` on one line
    "left-flow-pair-colon-on-next-line": ("[{a: 1}\n : 1]\n",),
    # a block scalar with an indentation indicator ending in lines of spaces only: eemeli/yaml
    # takes them for empty lines (chomped), the exact reader keeps the spaces past the indentation
    "left-indicated-block-scalar-space-lines": (">2\n   \n", "|2-\n   \n", "- |1\n    \n- x\n"),
    # issue 38 item 7: `%YAML 1.1` timestamps build a Date with Date.UTC, which carries a month,
    # day or hour past its range over; a zone under 30 in size is hours, from 30 on minutes
    "timestamp-11-carry-and-zone": (
        "%YAML 1.1\n---\na: 2001-13-05\n",
        "%YAML 1.1\n---\na: 2001-12-32\n",
        "%YAML 1.1\n---\na: 2001-00-05\n",
        "%YAML 1.1\n---\na: 2001-12-14t21:59:43.10+00:30\n",
        "%YAML 1.1\n---\na: 2001-12-14t21:59:43.10-00:30\n",
        "%YAML 1.1\n---\na: 2001-12-14t21:59:43.10+29\n",
        "%YAML 1.1\n---\na: 2001-12-14t21:59:43.10-29\n",
        "%YAML 1.1\n---\na: 2001-12-14t21:59:43.10+30\n",
        "%YAML 1.1\n---\na: 2001-12-14t21:59:43.10-30\n",
        "%YAML 1.1\n---\na: 2001-12-14 25:00:00 +5\n",
        "%YAML 1.1\n---\na: !!timestamp 2001-13-05\n",
        "%YAML 1.1\n---\na: 2001-13-05\na: 2002-01-05\n",  # fails: a duplicate key, whatever its dates
    ),
    # `!!timestamp` on a text that is no date: eemeli/yaml keeps the string (found while recording
    # the group above); we fail the document
    "left-timestamp-tag-on-a-non-date": ("%YAML 1.1\n---\na: !!timestamp 13-05\n",),
}


def texts() -> list[tuple[str, str]]:
    """(name, text) for every regression text."""
    return [
        (f"{group}/{n}", text) for group, group_texts in _GROUPS.items() for n, text in enumerate(group_texts)
    ]


if __name__ == "__main__":
    print_recording(texts())
