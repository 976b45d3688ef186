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
    # formats/v4/yamlmerge.py merges over the merge-off reading of yamlpos: a quoted '<<' is an
    # ordinary key beside a merge key, not its duplicate; an anchored second `<<` is a merge key
    # too; merged keys become String(key) (`~` gives "null", `[a, b]` "a,b"); a collection key
    # beside a merge key stays
    "merge-corners": (
        "<<: {a: 1}\n'<<': 2\n",
        '\u00e9: 1\n<<: {}\n"<<": 2\n',
        "<<: {}\n&k <<: {}\n",
        "<<: {~: 1, 1.0: 2, true: 3, [a, b]: 4, {c: d}: 5}\n",
        "x: &x {~: 1}\n<<: *x\n",
        "<<: {a: 1}\n[x]: 2\n",
        "<<: {a: 1}\n? [x, y]\n: 2\n",
        "<<: {a: 1}\n'<<': 2\n'<<': 3\n",
        "<<: {}\n&k <<: 1\n",
    ),
    # a flow collection on one line as the key of a flow sequence pair whose `:` opens the next
    # line: eemeli/yaml reads it (a scalar key keeps its line break, and fails; so does a key
    # with a blank or comment line before its `:`); a `,` there ends the key
    "flow-pair-colon-on-next-line": (
        "[{a: 1}\n : 1]\n",
        "[x, [a] # c\n : 1, b]\n",
        "[[a]\n , : 1]\n",
        "- [&x [a]\n  : 1]\n",
        "[\n? [a,[[[]]\n:]]]",
        "[a\n : 1]\n",
        "[{a: 1}\n\n : 1]\n",
        "[{a:\n 1}\n : 1]\n",
        "[[a]] \n : 1\n",
    ),
    # a block scalar with an indentation indicator and lines of spaces only: no content for
    # eemeli/yaml (empty, or its line breaks when kept), whatever the spaces past the indicator
    "indicated-block-scalar-space-lines": (
        ">2\n   \n",
        "|2-\n   \n",
        "- |1\n    \n- x\n",
        "|2+\n   \n",
        "|2+\n   \n   \n",
        "a: |2+\n     \nb: 1\n",
        "|2\n   \n  x\n   \n",
        "- |1\n   \n  x\n",
        "- |2\n x\n",
    ),
    # The classes below came from the mutation differential (tests/reliability/yaml_mutations.py)
    # and issue 34. A tab in a line's indentation: it may not indent a block collection (after
    # spaces too), and a blank line opening with one ends an indented plain scalar; inside a
    # block scalar it is text
    "tab-in-indentation": (
        "a:\n \tb: 1\n",
        " \t-",
        ": p\n\t\n t",
        "a:\n  \tb\n",
        "a: p\n \t\n q\n",
        "- x\n\t\n  y\n",
        "a: p\n\t\nb: 2\n",
        "a:\n \t- b\n",
        "a:\n  b: x\n\t c: 1\n",
        "a:\n  b: x\n \tc: 1\n",
        "tests:\n  - id: go\n    input: |\n      \tfmt.Println(1)\n      }\n",
    ),
    # an alias of a multi-line flow collection or quoted scalar: its lines are held to the
    # indentation where the anchor's node was written, not where the alias is
    "aliased-multi-line-flow-node": (
        "defaults: &d {\n  provider: openai,\n  model: gpt-4\n}\ntests:\n  - id: a\n    target: *d\n",
        "a: &q 'x\n y'\nb:\n  c: *q\n",
        "a: &q [1,\n2]\nb: *q\n",
        "b:\n  - &q [1,\n  2]\n",
    ),
    # `...` after an empty first document, then anything: a second document; a comment may
    # follow the leading BOM
    "document-end-marker": (
        "\ufeff# c\n---\na: 1\n...\n",
        "# c\n...\n---\na: 1\n",
        "...\n---\n",
        "...\n",
        "\ufeff# c\n...\n",
        "... # c\n---\na\n",
    ),
    # once internal errors (TypeError, ValueError): a `!!binary` key is its bytes as UTF-8,
    # an escape past Unicode a YAML error
    "no-internal-error": (
        "? !!binary aGVsbG8=\n: x\n",
        "? !!binary aGVsbG8=\n: x\n? !!binary aGVsbG8=\n: y\n",
        '"\\U00110000"\n',
        'k: "a\\U00110000"\n',
    ),
    # `%YAML`: 1.1 and 1.2 read, another n.m passed over (a warning), anything else fails
    "yaml-directive-version": (
        "%YAML 2.0\n---\na: 1\n",
        "%YAML 1.3\n---\ny\n",
        "%YAML 1.1\n%YAML 2.0\n---\ny\n",
        "%YAML 1.2\n%YAML 1.2\n---\na: 1\n",
        "%YAML 3\n---\na\n",
        "%YAML x\n---\na\n",
        "%YAML 1.1\u2029---\na\n",
    ),
    # a node after an explicit key on lines of its own, neither its `:` nor the next key,
    # is passed over
    "explicit-key-stray-node": (
        "? k\n-",
        "? b:\n k",
        "? -\n ,",
        "? k\n- a\n: v\n",
        "x:\n  ? a\n  - b\n  c: 1\n",
        "? a\nb\n",
        "? k\n: v\n-\n",
    ),
    # `!!set` applies to mappings (null values only), `!!omap` to sequences (unique keys),
    # `!!pairs`/`!!omap` items one pair each; on the other kind of collection the tag is
    # passed over
    "collection-tags": (
        "!!set []\n",
        "!!set [a]\n",
        "!!set {a: , b: ~}\n",
        "!!omap {a: 1}\n",
        "!!set {a: 1}\n",
        "!!omap [{a: 1}, {a: 2}]\n",
        "!!omap [{a: 1, b: 2}]\n",
        "!!pairs [{a: 1, b: 2}]\n",
    ),
    # `!!merge` on a value: the merge marker, which JSON.stringify drops; on a key: a merge key
    "merge-tag": (
        "a: !!merge x\n",
        "- !!merge x\n",
        "!!merge a: {b: 1}\n",
        "!!merge a: 1\n",
    ),
    # `!!timestamp` under `%YAML 1.1` keeps a text that is no date (1.2: an error)
    "timestamp-yaml-1-1": (
        "%YAML 1.1\n---\n!!timestamp\n",
        "%YAML 1.1\n---\nk: !!timestamp x\n",
        "%YAML 1.1\n---\nk: !!timestamp 2001-12-14\n",
        "!!timestamp ''\n",
        "%YAML 1.1\n---\na: !!timestamp 13-05\n",
    ),
    # a merge of a mapping into itself or into a mapping inside it: the alias count explodes
    "self-merge": (
        "&m1\n<<: *m1",
        "&m1\na: 1\n<<: *m1\n",
        "x: &x\n  b: 1\n  c:\n    <<: *x\n",
        "x: &x\n  <<: [*x]\n",
        "x: &x\n  b: 1\ny:\n  <<: *x\n",
    ),
    # a CR not followed by LF is no line break: text in a scalar or comment, white space only
    # after an indicator
    "lone-cr": (
        "tests:\n  - id: x\n    input: hi there\r    criteria: ok\n",
        "a: 1\rb: 2\n",
        "a: x\r",
        "a: 'x\ry'\n",
        'a: "x\ry"\n',
        "a: |\n  x\r  y\n",
        "a:\r  b: 1\n",
        "- a\r- b\n",
        "a: x # c\rd\n",
        "a: [1,\r2]\n",
        "\ra: 1\n",
        "a: 1\r\r\nb: 2\n",
        "a: x\r\n  y\r  z\n",
        "a:\rb\n",
        "\r",
        ">\r",
        "&5\r",
    ),
    # a BOM opening a line before the document's first content is dropped, as at the start
    # (and counts a column there); elsewhere it is text
    "bom-before-the-document": (
        "\n\ufeff[]",
        "# c\n\ufeffa: 1\n",
        "%YAML 1.2\n\ufeff---\na: 1\n",
        "\ufeff\n\ufeffa: 1\n",
        "\n\ufeff# c\na: 1\n",
        "a: 1\n\ufeffb: 2\n",
        "---\n\ufeffa: 1\n",
        "\n\ufeff- id: x\n",
        "...\n\ufeffa\n",
    ),
    # Left: a comment inside a collection key (eemeli/yaml keeps it in the key's text)
    "left-collection-key-comment": ("? []:\t#",),
    # a lone escaped surrogate stays in the string, as in JavaScript's (JSON.stringify writes
    # it as an escape; our command line writes U+FFFD to UTF-8, as node does); a pair is one
    # character; past U+10FFFF an escape fails
    "lone-surrogate-escape": (
        '"\\ud800"\n',
        'a: "x\\udfff y"\nb: ["\\ud83d\\ude00", "\\ude00\\ud83d"]\n',
        '{:[b,{"\\ud800"}]}',
        '%YAML 1.1\n---\na: "\\U0000d800"\n',
        "a: '\\ud800'\n",
        'a: "\\U00110000"\n',
    ),
    # a stray node after an explicit key that is no whole node to PyYAML's scanner (an unclosed
    # bracket, a key without `:`): eemeli/yaml passes over it, we fail (once: an endless loop)
    "left-explicit-key-stray-unfinished": (
        "? -\n [",
        "? -\n [-",
        "? {''}\n '\n---",
    ),
    # after an explicit key with no `:`, the first node on lines of its own (deeper, or a
    # sequence at the mapping's column) is passed over; a second one is the next entry, where
    # it may not be; a bare `?` then a deeper `:` on a later line: that `:` is the key's
    "explicit-key-passed-over": (
        "? -\n d\n-",
        "? 'a'\n 'b'\n 'c'\n",
        "? ''\n &a \"\"\n ?\n",
        "? [a]\n [b]\n [c]\n",
        "? a\n- b\n  - c\n- d\n",
        "? a\n- b\n: c\n",
        "? a\n [b]\n :\n",
        "?\n :",
        "?\n  a\n : v\n",
        "? a\n : v\n",
        "? a\n  b: c\n",
        # a `:` at the mapping's column after the passed-over node, or after an implicit key at
        # the explicit key's column, opens an entry of its own: no compact value of the key's
        "? |\n-\n: -",
        "? a\n<:\n: -",
        "? 'a'\n 'b'\n: - x\n",
        "? a\n- b\n: x: y\n",
        "? a\nb: c\n: d\n",
        "? a\n: - x\n",
        # what only eemeli/yaml's composer refuses is no error in the node passed over (a key
        # with no `:`); a node at the column of a sequence that is the key ends that sequence
        "? r\n- :\n  e",
        "? a\n- b: 1\n  c\n- d\n: x\n",
        "? - a\n  b\n",
        "  ? -\n    b\n",
        "? - a\n  b: 1\nc: 2\n",
        '? a\n- &r ""\n -\n',
        "? -\n-\n *- *b\n",
        "a:\n  - x\n  y: 1\n",
        "a:\n - b\n c: d\n",
        "- - a\n  b\n",
        # the key's `:` deeper, with no node after it: a `:` then at the key's column opens a
        # mapping that is its value
        "? a\n :\n:",
        "?\n :\n: v\n",
        "? a\n : &x\n: v\n",
        "? a\n :\n: - x\n",
        "? a\n : x\n: v\n",
        # a `:` at the key's column right after the passed-over node's end
        "? a\n- :\n:",
        "? a\n- b: c\n: - d\n",
        "? - a\n  b: 1\n  c: 2\n: d\n",
    ),
    # after an entry with no value, the first line (past deeper comments), when its white
    # space holds a tab after no more spaces than the mapping's column, stays the entry's where
    # the next entry follows at that column (or the text ends on it): a tab as indentation
    "tab-line-after-empty-value": (
        "? b\n\t\nr:",
        "a:\n\t\nr:",
        "a: &x # c\n\t \t\nr:",
        "- a:\n  \t\n  r:",
        "a:\n  # c\n\t\n# c\nr:",
        "a:\r\n\t\r\nr:",
        "a:\n\t",
        "a:\n  b:\n\n\t",
        "a:\n\n\t\nr:",
        "a:\n \t\nr:",
        "- a:\n   \t\n  r:",
        "a: b\n\t\nr:",
        "a:\n\t\n- x\n",
        "a:\n  b:\n\t\nc: 1\n",
        "? b\n\t# c\nr:",
        "?\n\t\nr:",
        "a:\n\t\n\n\n",
        "a: |\n x\n \t",
        "|\nx\n\t",
    ),
    # an anchor or tag whose name ends in `-`, `?` or `:`, then a tab: that character is the
    # name's, no block indicator a tab may not follow (eemeli/yaml warns of `&a:`, and reads it)
    "anchor-name-before-tab": (
        "&a:\ty:",
        "- &a:\ty: 1\n",
        "!a:\ty: 1\n",
        "&a?\ty: 1\n",
        "? &a:\ty: 1\n",
        "&a:\t- x\n",
        "-\t&a:\tx\n",
    ),
    # in a flow collection, a pair's value (and a collection that is a pair's key or sits in a
    # flow mapping) keeps no white space after its line: a comment opening the next line at
    # column 0 is glued to it; after an item of a sequence, a `,` or a blank line it is not
    "flow-comment-at-line-start": (
        "{[]\n#\n}",
        "{a: []\n#\n}",
        "{a: b\n#\n}",
        '{a: "b\n c"\n#\n}',
        "[a: {}\n#\n]",
        "[? []\n#\n]",
        "x: &x 1\ny: {a: *x\n#\n}",
        "{a: b #x\n#\n}",
        "[[]\n#\n]",
        "{? a\n#\n}",
        "{a: [],\n#\n}",
        "{a: b\n\n#\n}",
        "{a: b\n #\n}",
        "{a: [[]\n#\n]}",
        "# c\n[a,\n# d\n b]\n",
    ),
    # a quoted scalar whose next line is indented too little for its block: eemeli/yaml ends it
    # at its line's end; when that is its quote character (escaped `\"`, doubled `''`) it loads
    # so, and the lines after are read afresh; otherwise the quote is missing
    "quote-cut-by-unindent": (
        '  - d:\n    s:\n    i: "\\"\n  - |\n   """',
        'k:\n  i: "\\"\nj: 1"',
        'k:\n  i: "a\n\n   b  \\"\nj: 1"',
        "k:\n  i: 'a''\nj: 1'",
        'k:\n  i: "\\"\r\nj: 1"',
        '- "\\"\n- ""',
        'k:\n  i: "a\\"\nj: 1"\nx: &a 1\ny: *a',
        'k:\n  i: "x\nj: 1"',
        'k:\n  i: "\nj: 1"',
        'k:\n  i: "\\\\"\nj: 1"',
        ': "\\"\n%',  # (no closing quote at all: the lexer takes the rest, and misses it)
        'k:\n  i: "\\"\nj: 1',
    ),
    # a document that is a `!!merge` scalar: Symbol(<<) for eemeli/yaml, which JSON.stringify
    # leaves undefined (null in an array); under `%YAML 1.1` the tag is unknown, the text stays
    "merge-document": (
        "!!merge",
        "--- !!merge x\n",
        "&a !!merge\n",
        "- !!merge\n",
        "%YAML 1.1\n--- !!merge x\n",
        "%YAML 1.1\n---\n- !!merge\n",
        "%YAML 1.1\n---\n!!merge x: 1\n",
        "!!merge x: 1\n",
    ),
    # directives after a document's `...` with no document after them: eemeli/yaml checks them
    # and reads on; before any document they need their `---`
    "directives-after-the-last-document": (
        "a\n...\n%YAML 1.2\n",
        "a\n...\n%YAML 1.2",
        "--- a\n...\n%TAG ! !x\n# c\n\n",
        "...\n%YAML 1.2\n",
        "a\n...\n%FOO\n%YAML 1.2\n",
        "%YAML 1.2\n",
        "a\n...\n%YAML x\n",
        "...\n%YAML 1.2\n---\nx",
        "a\n...\n%YAML 1.2\n...\n",
        "---\n%",  # (no `...`: a plain scalar may not start with `%`)
        "--- a\n%YAML 1.2\n",
    ),
    # `? k`, then a bare `:` (properties and a comment at most), then a `: v` line at its
    # column: eemeli/yaml makes that entry and the mapping's further ones a mapping that is k's
    # value; without the explicit key, or after a `:` with a value, they stay in the mapping
    "explicit-key-bare-value-then-value": (
        "? a\n:\n:",
        "? a\n: &x # c\n\n: b\nc: d\n? e\n",
        "- ? a\n  :\n  : b\n- c\n",
        "x:\n  ? a\n  : !t\n  : b\ny: 1\n",
        "? a\n:\n:\n? b\n:\n: c\n",
        "? a\n: x\n: y\n",
        "a:\n:\n: b\n",
        "? a\n:\n: b\n: c\n",
    ),
    # a collection key's text (eemeli/yaml's stringifier): an item's tag as written (`!` too),
    # a core-tagged scalar as the value its tag makes (`!!int "1"` is `!!int 1`, `!!int x`
    # `!!int .nan`), an int's base (`0x1f`), an exponent (`1e+3`), -0, and `\x01` escapes
    "collection-key-text": (
        '? - !!str ""',
        "? [!!str 'x', !!map {}, !!seq [], ! x, ! \"y\", &a !custom z]",
        '? [!!int "1", !!int x, !!null "", !!null "x", !!bool "True", !!bool x, !!float "1.50"]',
        "? [0x1F, 0o17, 1e3, -2e-4, .5E1, -0, -0.0, 1.50]",
        '? - "a\\tb\\u0001\\0\\a\\v\\e\\ud800"',
        "? - !!int 0x1F\n: v\n? - !!timestamp x\n",
    ),
    # a BOM opening the document's first content line, then indentation: eemeli/yaml's parser
    # counts none there, so a block collection opened on that line sits at column 0
    "bom-before-indentation": (
        "\ufeff  a: 1\nb: 2\n",
        "# c\n\ufeff  a:\n   b: 1\n",
        "\ufeff  -\n  - b\n",
        "\ufeff  - # c\n  - b\n",
        "\ufeff  -a: 1\nb: 2\n",
        "\ufeff  [a,\n  b]\n",
        "\ufeff  ...\n",
        "\ufeff  a: 1\n  b: 2\n",
        "\n\ufeff a: 1\n b: 2\n",
        "\ufeff  a:\n    b: 1\n  c: 2\n",
        "\ufeff  - a\n",
        "\ufeff ---x:\n ---x:",  # (no marker: the shift applies)
        "\ufeff  ...\r\n",
        "\ufeff %\n---",  # (no directive: a plain scalar may not start with `%`)
    ),
    # a bare `?`, then (past blank and comment lines) a block scalar at its column: a new
    # implicit key for eemeli/yaml, which a block scalar cannot be (after properties too);
    # deeper, it is the key
    "bare-key-then-block-scalar": (
        "?\n|",
        "? # c\n\n|-\n",
        "- ?\n  >\n   x\n  : 1\n",
        "a: 1\n?\n|",
        "?\n |\n  x\n",
        "?\n!!str |\n x\n",
        "? a\n|",
    ),
    # a flow collection opening a line of an indented block mapping is its next key after an
    # entry whose value is a block scalar (its lines end it), not after one with a value on
    # the key's line ("Map comment with trailing content")
    "flow-key-after-block-scalar": (
        "m:\n  a: |\n    x\n  [x]: 2\n",
        " : >\n []:",
        " a: |\n []: 1\n",
        "m:\n  a: 1\n  [x]: 2\n",
        "m:\n  a: 'x'\n  {x: 1}: 2\n",
    ),
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
    # a line opening with a bare `:` deeper than a block mapping whose entry has its value (or
    # at the column of a sequence that is that value): the mapping's next entry, its key empty;
    # a value on the `:`'s line continues on lines indented past the `:`, and takes no `? k`
    "bare-colon-under-finished-pair": (
        "1: x\n :",
        "1: x\n : v\n2: y\n",
        "a:\n b: 1\n  : 2\n",
        "a:\n  b: 1\n :\n",
        "a:\n - 1\n :\nb: 2\n",
        "a:\n  b:\n   - 1\n   :\n  c: 2\n",
        "1: x\n :\n :\n",
        "a: 1\n :\n b: 2\n",
        "a: 'q' # c\n\n : # c\n",
        "- 1: x\n   : &a\n    - b\n- *a\n",
        "a: 1\n : 'v\n  w'\n",
        "a: 1\n : v\n  w\n",
        "a: 1\n   : |\n    x\n",
        "1: x\n : v\n : w\n",
        "a: 1\n : v\n w\n",
        "a: 1\n : 'v\n w'\n",
        "a: 1\n : [a,\n b]\n",
        "a: 1\n   : |\n   x\n",
        "a: 1\n : b: 2\n",
        "a: 1\n : ? x\n",
        ": ? x\n",
        "a:\n - 1\n : v\n - 2\n",
        "- a\n :\n",
    ),
    # a BOM opening the text, then a directive or `...`: the directive is read (`%YAML 1.1`
    # gives its scalar rules), as without the BOM
    "bom-before-directive": (
        "\ufeff%YAML 1.1\n---\nr: y\n",
        "\ufeff%YAML 1.1\n%YAML 1.1\n--- 0o7\n",
        "\ufeff...\n",
        "\ufeff%YAML 1.1 x\n--- y\n",
        "\ufeff...\na\n",
        "\ufeff %YAML 1.1\n--- y\n",
    ),
    # after a `...` line eemeli/yaml's lexer is in its stream state again: a BOM opening a line
    # there is dropped, up to the next content (which is another document)
    "bom-after-document-end": (
        "...\n\ufeff",
        "a\n...\n\ufeff# c\n",
        "a\n...\n# c\n\ufeff\n\ufeff \t\n",
        "a\r\n...\r\n\ufeff\r\n",
        "\ufeff...\n\ufeff",
        "a\n...\n\ufeff%YAML 1.1\n",
        "a\n\ufeff...\n\ufeff",
        "a\n...\n\ufeffb\n",
        "a\n...\n \ufeff\n",
        "a\n...\n\ufeff...\n",
    ),
    # a block scalar opening a line at the column of the block collection it is in: no value
    # but that collection's next entry, which it cannot be; deeper, it is the value
    "block-scalar-at-collection-column": (
        "a:\n|\n x\n",
        "a: &x # c\n\n>-\n x\n",
        "- a:\n  |\n   x\n",
        "a:\n  b:\n  |\n   x\n",
        "-\n|\n",
        "a:\n  - x\n  |\n",
        "a:\n |\n x\n",
        "-\n |\n x\n",
        "|\n x\n",
        "a: x\n  |\n",
        'a: "x\n |\n y"\n',
    ),
    # `-` opening a line inside a flow collection, before `,` or the bracket: a block
    # sequence there, refused
    "dash-opening-flow-line": (
        "[\n-]",
        "{a: 1,\n-}\n",
        "[\n-x]\n",
        "[\n'-']\n",
    ),
    # a clipped or stripped block scalar with an indentation indicator: its last lines of
    # spaces only, no longer than its first content line's indentation, are dropped (the
    # first line is never); a keeping one keeps them; CRLF alike
    "block-scalar-short-space-lines": (
        "|1\n  x\n  ",
        "a: |1\n   x\n   \n  \nb: 1\n",
        "|1\n  x\n  \n   \n  \n",
        ">1\n  x\n  y\n  ",
        "|1-\n  x\n  ",
        "|1+\n  x\n  ",
        "|2\n  x\n   ",
        "|1\n  \n  x",
        "|1\r\n  x\r\n  ",
        "a: |2\r\n   x\r\n",
        "|1\n  x\n\t",
    ),
    # in a flow collection, an anchor or tag as an entry (not a pair's value), then a line
    # break before the `,`: eemeli/yaml makes no empty node there, and refuses the `,`
    "flow-props-then-line-break-then-comma": (
        "[&x\n,]",
        "[a, &x # c\n\n , b]\n",
        "{&x\n, a}\n",
        "- [!!str\r\n  ,]\r\n",
        "[? &x\n, a]\n",
        "[&x ,]\n",
        "[a, &x\n]\n",
        "{a: &x\n, b}\n",
        "[a: &x\n,]\n",
        "[&x a\n,]\n",
    ),
    # a tab in the white space opening a line before an anchor or tag is indentation, save
    # before the document's root when a flow collection follows the props
    "tab-before-props-at-line-start": (
        " \t&r",
        "a:\n \t&r x\n",
        "a:\n  \t!!str [a]\n",
        "# c\n \t&r\n x\n",
        " \t&r [a]\n",
        " \t!!str {a: 1}\n",
        "--- \t&r x\n",
        "a: \t&r x\n",
        "a: [\n \t&r x]\n",
        "a: |\n \t&r x\n",
    ),
    # at the document's root a tab opening the line may come before anchors and tags when a
    # flow collection follows them, on that line or a later one (mutation seed 1: `\t&q []`)
    # `!!binary` is Node's Buffer.from(text, "base64"): a string holding a character past U+00FF
    # is read a UTF-16 unit at a time by its low byte (mutation seed 53: `!!binary \u2665e`)
    "binary-wide-characters": (
        "!!binary \u2665e",
        "!!binary aGVs\u2665bG8=",
        "!!binary \U0001F600aGk",
        "!!binary \u00e9aGk",
        "!!binary \u0141QQ",
        "a: !!binary \u2665e\na: 1",
    ),
    # writing a collection key's text, eemeli/yaml refuses an anchor or alias name holding
    # JavaScript white space or a control character (`anchorIsValid`), which its scanner took
    # (mutation seed 61: `&y [&\ufeff]:`); elsewhere such a name is no error
    "invalid-anchor-in-collection-key": (
        "&y [&a\u00a0b x]: 1",
        "[&a\u3000 x]: 1",
        "[&a x, *a]: 1",
        "&\ufeff [a]: 1",
        "? &k [a]\n: 1\n*k : 2",
        "x: &\ufeff 1",
    ),
    # the same with a BOM in the name: formats/v4 hides a BOM that is text from the scanner
    # behind a stand-in, which the key's text check does not see (mutation seed 61)
    "left-bom-anchor-in-collection-key": (
        "&y [&\ufeff]:",
        "[&\ufeff a]: 1",
    ),
    # eemeli/yaml strips a `\r` ending a block scalar's line (taking it for a CRLF's): a lone CR
    # ending the text there is a line break, not text; elsewhere it stays (mutation seeds 53, 61)
    "lone-cr-ending-a-block-scalar": (
        "|\n\r",
        ">\n\r",
        "|\n b\r",
        "a: |\n  b\r",
        "a: >\n  b\r",
        "- |\n  x\r",
        "a: |-\n  b\r",
        "a: |\n  b\r\n  c\r",
        "a: |\n  b\r\r",
        "|\n\r\r",
        "a: |\n  b\n# c\r",
        "a: |\n  b\nc: d\r",
        "a: b\r",
        "a: |\n  b\n\r",
        "- |\n\r",
    ),
    # the same after a last line of spaces: eemeli/yaml's lexer ends the scalar before the CR
    "left-spaces-then-lone-cr-ending-a-block-scalar": (
        "|\n  \r",
        "a: |\n  b\n  \r",
    ),
    "tab-before-root-props-then-flow": (
        "\t&q []",
        "\t!t []",
        "\t&q !t {a: 1}",
        "\t&q\n[]",
        "\t&q # c\n[]",
        "\t&q\n\n  []",
        "\t&q\n\t[]",
        "\t&q#c\n[]",
        " \t&q\n[]",
        "\t&q x",
        "\t&q\nx",
        "\t&q\n- a",
        "a:\n\t&q []",
    ),
    # `!!merge` on a scalar in a collection used as a key: its text there is `<<`, whatever
    # the scalar's own (a duplicate of such a key fails as any)
    "merge-tag-in-collection-key": (
        "?\n- !!merge",
        "[!!merge x, !!str y]: 1\n",
        "{!!merge <<: {}}: 1\n",
        "[!!merge x]: 1\n[!!merge y]\n",  # (no `:`: fails)
    ),
    # a lone CR (text, no line break) ends a plain scalar's word before `#`, which then opens
    # a comment with no white space before it: refused; in quotes, block scalars, comments and
    # before white space it is text as ever
    "lone-cr-then-hash": (
        "\r#",
        "a: b\r#c\n",
        "- a\r#b\n",
        "[a\r#]\n",
        "a: b\r #c\n",
        'a: "b\r#"\n',
        "# x\r#\na: 1\n",
        "a: |\n b\r#\n",
    ),
    # a later key of a block mapping with no `:` on its line (one line, at the mapping's
    # column) takes for its `:` the next token when that is a `:` opening a line deeper, past
    # blank and comment lines; the first key, a multi-line key or a `:` at the column does not
    "key-colon-on-a-later-line": (
        "x: 1\na\n : v\n",
        "x: 1\na # c\n\n : v\n : w\n",
        "- x: 1\n  &z a b\n   :\n    - c\n",
        "x: 1\n[a]\n : v\n",
        ":\na\n :",
        "a\n :\n",
        "x: 1\na\n: v\n",
        "x: 1\na\n  b\n : v\n",
        "x: 1\n[a,\n b]\n : v\n",
        "x: 1\na\n :x\n",
        ":\n!\n :",  # (a tag alone, no node: a key over two lines)
        # past comment lines, at any column, after the key's line
        "x: 1\na\n # c\n : v\n",
        "x: 1\na\n# c\n\n  # d\n : v\n : w\n",
        "- x: 1\n  a\n   # c\n   : v\n",
        "x: 1\na\n # c\n: v\n",
        "x: 1\na\n # c\n :v\n",
        "x: 1\n&a\n # c\n : v\n",
        # such a `:` takes a block collection on its line, as an explicit key's does
        "x: 1\na\n : - b\n   - c\ny: 2\n",
        "x: 1\na\n # c\n : - - b\n",
        "x: 1\na\n : b: c\n   d: e\n : f\n",
        "x: 1\na\n : ? b\n   : c\n",
        "x: 1\na\n : - b\n - c\n",
        "x: 1\na\n : b: c\n  d: e\n",
        "x: 1\na\n : b: c: d\n",
        "x: 1\na\n :\t- b\n",
    ),
    # an alias as a key whose anchored value is a `!!binary` Buffer: eemeli/yaml keys the mapping
    # by the alias's text (`*b`), as for a collection, and never finds it a duplicate
    "binary-alias-key": (
        ": !!binary &b\n*b :",
        "x: &b !!binary aGk=\n*b : 2\n*b : 3\nhi: 4\n",
        "x: &b !!binary aGk=\n? *b\n: 2\n",
        "{x: &b !!binary aGk=, *b : 2}\n",
        "x: &b !!binary aGk=\ny:\n- *b : 2\n",
        "? &b !!binary aGk=\n: 1\n*b : 2\n",
        "x: &b !!binary aGk=\n*b: 2\n",  # (`b:` is the alias's name: undefined)
    ),
}


def texts() -> list[tuple[str, str]]:
    """(name, text) for every regression text."""
    return [
        (f"{group}/{n}", text) for group, group_texts in _GROUPS.items() for n, text in enumerate(group_texts)
    ]


if __name__ == "__main__":
    print_recording(texts())
