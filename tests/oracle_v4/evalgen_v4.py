"""A hypothesis strategy for small repositories of AgentV 4.x eval files, for differential tests.

`repos()` draws a `GeneratedRepo`: one eval file (`evals/<name>.eval.yaml`, sometimes at the root)
and the files it references. It covers the `tests:` format broadly: string and message inputs
(system/user/assistant/tool and odd roles), text/file/image segments with several path forms
(existing or missing), suite `input`/`input_files`/`assertions`/`metadata` and per-test
`execution.skip_defaults`, `input_files`, the criteria/expected_output/assertions forms (strings,
messages, objects, grader lists with llm-grader prompts, prompt files and rubrics),
`conversation_id`, `tests:` as a path to a YAML list, a JSONL file or a directory of case.yaml
files, `file://` entries in the list, `${{ VAR }}` interpolation (ENVIRONMENT below), per-test `vars` templates, conversation
mode, missing and wrongly typed fields, duplicate ids, odd whitespace, CRLF, a BOM and unicode,
anchors, aliases and merge keys (`<<`) for shared test defaults.

Values are dumped with PyYAML in a drawn style (block or flow, plain or quoted or literal);
what the text means does not matter to a differential test, only that both sides read the same
bytes, so some drawn files are not valid YAML or not valid eval files on purpose.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import yaml
from hypothesis import strategies as st

# Short texts with the characters that trip formatters: spaces at the ends, tabs, newlines,
# CR, NBSP, U+2028, BOM, NEL, accents, CJK, emoji, quotes, braces, YAML indicators.
_SPECIAL = ["  ", "\t", "\n", "\r\n", "\r", "\u00a0", "\u2028", "\ufeff", "\u0085", "é", "ß", "中文", "🎉"]
_ALPHABET = st.sampled_from([*"abcxyz ABC019 .,:;-_/#'\"{}[]*&!%@`|>?", *_SPECIAL])
TEXT = st.lists(_ALPHABET, min_size=0, max_size=8).map("".join)
WORDS = [
    "Say hello.",
    "What is 2+2?",
    "Review this code",
    "  padded  ",
    "Ça va ?",
    "多語言",
    "🎉 party",
    "line one\nline two",
    "trailing newline\n",
    "",
    " ",
    "yes",
    "null",
    "0x1F",
    "1e3",
    "~",
    "- dash",
    "key: value",
    "# not a comment",
    "{{ output }}",
    "{{input}} and {{ criteria }}",
    "x" * 40,
    # environment interpolation (the test sets these variables for both sides)
    "${{ AGENTV_DIFF_TEXT }}",
    "${{AGENTV_DIFF_NUM}}",
    "${{ AGENTV_DIFF_BOOL }}",
    "a ${{ AGENTV_DIFF_NUM }} b",
    "${{ AGENTV_DIFF_UNSET }}",
    "${{ 1BAD }}",
    # per-test `vars` templates
    "{{ name }}",
    "Hi {{ n }}!",
    "{{ obj.a }} / {{obj}}",
    "{{ list }}",
    "{{ missing_var }}",
]

# files the repository may hold, with the paths the eval file may use for them
_TEXT_FILES = {
    "evals/snips/code.py": "def add(a, b):\n    return a + b\n",
    "evals/grade.py": "print('{}')\n",  # a prompt script's file (never run)
    "evals/ctx/notes.md": "# Notes\r\nCRLF line\r\n\u00e9t\u00e9 🎉\n",
    "evals/ctx/data.json": '{"k": [1, 2]}',
    "docs/guide.md": "Guide\n\n  indented\n",
    "evals/empty.txt": "",
    "evals/graders/judge.md": "Grade {{ output }} for {{input}}.\r\nReference: {{expected_output}}\n",
    "evals/graders/plain.md": "No variables here at all.\n",
    "shared/rubric.md": "Rubric template: {{ output }} / {{rubrics_json}} / {{ metadata_json }}",
}
_PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")
_CHECK_SCRIPT = "print('{\"score\": 1}')\n"
FIXED_FILES = frozenset([*_TEXT_FILES, "evals/pic.png", "evals/check.py"])
FILE_REFS = [
    "./snips/code.py",
    "snips/code.py",
    "ctx/notes.md",
    "./ctx/data.json",
    "/docs/guide.md",
    "../docs/guide.md",
    "empty.txt",
    "./missing.md",
    "nope/none.txt",
    "./snips",
    "snips/*.py",
    "./pic.png",
    " ./snips/code.py ",
]
IMAGE_REFS = ["./pic.png", "pic.png", "./missing.png", "/evals/pic.png", "https://example.com/a.png"]
ROLES = ["system", "tool", "User", "developer", ""] + ["user"] * 10 + ["assistant"] * 4 + ["system"] * 2


# set for the runtime and for our loader alike while a generated repo is read
ENVIRONMENT = {
    "AGENTV_DIFF_TEXT": "from the environment",
    "AGENTV_DIFF_NUM": "42",
    "AGENTV_DIFF_BOOL": "true",
}

_CURRENT: list[random.Random] = [random.Random(0)]


def _rnd(draw: st.DrawFn) -> random.Random:
    """The structural coin of the repo being drawn: a Random seeded by hypothesis (reproducible
    from the hypothesis seed), with true probabilities (hypothesis' own integers and booleans
    lean hard towards boundary values, which would make every rare feature common)."""
    return _CURRENT[0]


@dataclass
class GeneratedRepo:
    files: dict[str, str | bytes] = field(default_factory=dict)
    eval_file: str = "evals/gen.eval.yaml"

    def describe(self) -> str:
        """The files that vary (not the fixed reference files), for a bug report."""
        return self.describe_eval_first()

    def describe_eval_first(self) -> str:
        """The eval file, then the drawn test files; the fixed reference files are only named."""
        out = [f"--- {self.eval_file}\n{self.files[self.eval_file]!r}"]
        for path in sorted(self.files):
            if path == self.eval_file or path in FIXED_FILES:
                continue
            content = self.files[path]
            out.append(f"--- {path}\n{content!r}")
        out.append("(fixed files: " + ", ".join(sorted(FIXED_FILES)) + ")")
        return "\n".join(out)


def _text(draw: st.DrawFn) -> str:
    """A listed tricky text or a drawn one."""
    return _rnd(draw).choice(WORDS) if _rnd(draw).random() < 0.6 else draw(TEXT)


def _segment(draw: st.DrawFn) -> Any:
    kind = _rnd(draw).choice(["text", "file", "image", "text", "odd"])
    if kind == "text":
        return {"type": "text", "value": _text(draw)}
    if kind == "file":
        return {"type": "file", "value": _rnd(draw).choice(FILE_REFS)}
    if kind == "image":
        return {"type": "image", "value": _rnd(draw).choice(IMAGE_REFS)}
    return _rnd(draw).choice(
        [
            {"type": "text"},
            {"type": "file"},
            {"value": "no type"},
            "bare string",
            "   ",  # a blank string item (issue 38: dropped by the loader)
            "",
            {"type": "video", "value": "x"},
            {"type": "text", "value": 42},
            {"type": "file", "value": None},
            None,
        ]
    )


def _message(draw: st.DrawFn, roles: list[str] = ROLES) -> Any:
    role = _rnd(draw).choice(roles)
    shape = _rnd(draw).choice(["text", "text", "segments", "missing", "odd"])
    message: dict[str, Any] = {"role": role}
    if shape == "text":
        message["content"] = _text(draw)
    elif shape == "segments":
        message["content"] = [_segment(draw) for _ in range(_rnd(draw).randint(1, 3))]
    elif shape == "odd":
        message["content"] = _rnd(draw).choice([42, None, {"a": 1}, ["x"], True, 0, False, ["Hi", "   "]])
    if role == "assistant" and _rnd(draw).random() < 0.5:
        message["tool_calls"] = [{"tool": "search", "input": {"q": _text(draw)}}]
    return message


def _input(draw: st.DrawFn) -> Any:
    shape = _rnd(draw).choices(["string", "messages", "object", "odd"], [45, 40, 8, 7])[0]
    if shape == "string":
        return _text(draw)
    if shape == "messages":
        return [_message(draw) for _ in range(0 if _rnd(draw).random() < 0.05 else _rnd(draw).randint(1, 4))]
    if shape == "object":
        return _message(draw)
    return _rnd(draw).choice([42, None, True, {"content": "no role"}])


def _expected(draw: st.DrawFn) -> Any:
    shape = _rnd(draw).choice(["string", "messages", "object", "odd"])
    if shape == "string":
        return _text(draw)
    if shape == "messages":
        roles = ["assistant", "assistant", "tool", "user"]
        return [_message(draw, roles) for _ in range(_rnd(draw).randint(0, 3))]
    if shape == "object":
        return _rnd(draw).choice([{"answer": 4}, {"role": "assistant", "content": "It is 4."}, {}])
    return _rnd(draw).choice([42, None, True, 3.5])


def _rubric(draw: st.DrawFn) -> Any:
    shape = _rnd(draw).choice(["string", "object", "ranges", "odd"])
    if shape == "string":
        return _text(draw)
    item: dict[str, Any] = {}
    if _rnd(draw).random() < 0.5:
        item["id"] = _rnd(draw).choice(["r1", "r2", "clarity", "ü"])
    if shape == "object":
        item[_rnd(draw).choice(["outcome", "criteria"])] = _text(draw)
    if _rnd(draw).random() < 0.5:
        item["weight"] = _rnd(draw).choice([1, 1.0, 2, 0.5, 0, 1e-7, 3])
    if _rnd(draw).random() < 0.5:
        # numbers too: JavaScript truthiness (issue 38: `required: 0`, `operator: 0`)
        item["required"] = _rnd(draw).choice([True, False, 0, 1, ""])
    if _rnd(draw).random() < 0.5:
        item["operator"] = _rnd(draw).choice(["correctness", "contradiction", "bogus", 0, 1])
    if shape == "ranges":
        item["outcome"] = _text(draw)
        item["score_ranges"] = _rnd(draw).choice(
            [
                {0: "bad", 5: "ok", 9: "great"},
                [{"score_range": [0, 5], "outcome": "low"}, {"score_range": [6, 10], "outcome": "high"}],
                {0: "all"},
                [{"score_range": [0, 10], "outcome": "x"}],
                # equal ends print one score (`Score 5`), as numbers or strings (issue 38)
                [
                    {"score_range": [0, 4], "outcome": "low"},
                    {"score_range": [5, 5], "outcome": "five"},
                    {"score_range": [6, 10], "outcome": "high"},
                ],
                [{"score_range": ["5", "5"], "outcome": "five"}, {"score_range": [0, 4], "outcome": "low"}],
            ]
        )
        if _rnd(draw).random() < 0.5:
            item["min_score"] = _rnd(draw).choice([0.5, 1, 0.25])
    if shape == "odd":
        return _rnd(draw).choice([42, None, {"outcome": ""}, ["x"]])
    return item


def _grader(draw: st.DrawFn) -> Any:
    kind = _rnd(draw).choice(
        ["string", "string", "llm", "llm", "llm-file", "rubrics", "contains", "regex", "code", "odd"]
    )
    if kind == "string":
        return _text(draw)
    if kind in ("llm", "llm-file"):
        grader: dict[str, Any] = {"type": _rnd(draw).choice(["llm-grader", "llm_grader", "llm-grader"])}
        if _rnd(draw).random() < 0.5:
            grader["name"] = _rnd(draw).choice(["judge", "second judge", "ü"])
        if kind == "llm-file":
            grader["prompt"] = _rnd(draw).choice(
                [
                    "file://graders/judge.md",
                    "file://shared/rubric.md",
                    "file://graders/plain.md",
                    "graders/judge.md",
                    "file://missing.md",
                ]
            )
        elif _rnd(draw).random() < 0.5:
            grader["prompt"] = _rnd(draw).choice(
                [
                    _text(draw),
                    "Q={{ input }} A={{output}}",
                    "{{ constructor }} {{output}}",
                    # prompt scripts, one element or more (issue 38): never run, the request unknown
                    {"command": ["./grade.py"]},
                    {"command": ["python3", "grade.py"]},
                ]
            )
        if _rnd(draw).random() < 0.5:
            grader["rubrics"] = [_rubric(draw) for _ in range(_rnd(draw).randint(0, 3))]
        return grader
    if kind == "rubrics":
        return {"type": "rubrics", "criteria": [_rubric(draw) for _ in range(_rnd(draw).randint(0, 3))]}
    if kind == "contains":
        return {"type": "contains", "value": _text(draw)}
    if kind == "regex":
        return {"type": "regex", "value": "a+"}
    if kind == "code":
        return {"type": "code-grader", "command": ["python3", "check.py"]}
    return _rnd(draw).choice(
        [42, None, {"type": 7}, {"name": "no type"}, {"type": "llm-judge"}, {"type": "custom-kind"}]
    )


def _test(draw: st.DrawFn, index: int) -> Any:
    if _rnd(draw).random() < 1 / 31:
        return _rnd(draw).choice([None, "a string test", 42, []])
    test: dict[str, Any] = {}
    id_shape = _rnd(draw).choices(["plain", "dup", "missing", "number", "odd"], [80, 6, 4, 4, 6])[0]
    if id_shape == "plain":
        test["id"] = f"t{index}"
    elif id_shape == "dup":
        test["id"] = "t0"
    elif id_shape == "number":
        test["id"] = index
    elif id_shape == "odd":
        test["id"] = _rnd(draw).choice([" spaced ", "ü-🎉", "", "a/b"])
    if _rnd(draw).random() >= 1 / 10:
        test["input"] = _input(draw)
    for key, chance, make in (
        (
            "criteria",
            0.7,
            lambda: _text(draw) if _rnd(draw).random() < 0.9 else _rnd(draw).choice([42, None, ["a"]]),
        ),
        ("expected_output", 0.4, lambda: _expected(draw)),
        ("assertions", 0.5, lambda: [_grader(draw) for _ in range(_rnd(draw).randint(0, 3))]),
    ):
        if _rnd(draw).random() < chance:
            test[key] = make()
    if _rnd(draw).random() < 1 / 6:
        test["conversation_id"] = _rnd(draw).choice(["thread-1", 7, "", None])
    if _rnd(draw).random() < 1 / 6:
        test["input_files"] = _rnd(draw).sample(FILE_REFS, _rnd(draw).randint(0, 2))
    if _rnd(draw).random() < 1 / 6:
        test["execution"] = {"skip_defaults": _rnd(draw).choice([True, False, "yes"])}
    if _rnd(draw).random() < 1 / 7:
        test["metadata"] = _rnd(draw).choice([{"owner": "qa"}, {"tags": ["x"]}, "not an object"])
    if _rnd(draw).random() < 1 / 9:
        test["rubrics"] = [_rubric(draw) for _ in range(_rnd(draw).randint(1, 2))]
    if _rnd(draw).random() < 1 / 8:
        _conversation(draw, test)
    if _rnd(draw).random() < 1 / 7:
        test["vars"] = _rnd(draw).choice(
            [
                {"name": _text(draw), "n": 3, "obj": {"a": 1}, "list": [1, "x"]},
                {"name": None},
                "not an object",
                {},
            ]
        )
    if _rnd(draw).random() < 1 / 11:
        test[_rnd(draw).choice(["assert", "evaluators", "outcome", "input_messages", "note"])] = _text(draw)
    if _rnd(draw).random() < 1 / 8:
        _javascript_names(draw, test)
    return test


# -- JavaScript's property names in templates and vars ---------------------------------------
# The runtime looks `{{ name }}` up on plain JavaScript objects, and copies every parsed object
# by assignment (`interpolateEnv`), so names every object has and `__proto__` keys behave as
# JavaScript says (tests/oracle_v4/cases/js-*).
_PROTOTYPE_NAMES = ["toString", "constructor", "hasOwnProperty", "valueOf", "__proto__", "isPrototypeOf"]


def _prototype_placeholder(draw: st.DrawFn) -> str:
    name = _rnd(draw).choice(_PROTOTYPE_NAMES)
    return _rnd(draw).choice(
        [
            f"{{{{ {name} }}}}",  # a whole value: the field may become a function
            f"say {{{{{name}}}}} now",
            f"{{{{ obj.{name} }}}} and {{{{ name.{name} }}}}",
            f"{{{{ {name}.name }}}} / {{{{ missing_var.{name} }}}}",
            f"env ${{{{ {name} }}}} here",  # `process.env[name]` has them too
            f"${{{{ {name} }}}}",  # a function there makes the whole file fail to load
        ]
    )


def _prototype_vars(draw: st.DrawFn) -> dict[str, Any]:
    variables: dict[str, Any] = {"name": _text(draw), "obj": {"a": 1}}
    key = _rnd(draw).choice(["__proto__", "constructor", "toString", "__proto__"])
    variables[key] = _rnd(draw).choice(["hello", None, {"name": "inherited", "z": 3}, ["a", "b"], 7])
    if _rnd(draw).random() < 0.3:
        variables["obj"] = {"__proto__": _rnd(draw).choice([None, {"a": 2, "b": "x"}, "s"])}
    return variables


def _javascript_names(draw: st.DrawFn, test: dict[str, Any]) -> None:
    """Prototype names in `{{ }}` placeholders, in `vars` keys and as whole values."""
    test["vars"] = _prototype_vars(draw) if _rnd(draw).random() < 0.6 else {"name": "n"}
    field = _rnd(draw).choice(["criteria", "input", "expected_output", "input_message", "input_files"])
    text = _prototype_placeholder(draw)
    if field == "input_message":
        test["input"] = [{"role": "user", "content": text}, {"role": "user", "content": _text(draw)}]
    elif field == "input_files":
        test["input_files"] = [text, *_rnd(draw).sample(FILE_REFS, 1)]
    else:
        test[field] = text
    if _rnd(draw).random() < 0.2:
        test["__proto__"] = _rnd(draw).choice([{"criteria": "inherited"}, None, "x"])


def _conversation(draw: st.DrawFn, test: dict[str, Any]) -> None:
    """`mode: conversation` with turns (graded turn by turn on the transcript)."""
    if _rnd(draw).random() < 0.9:
        test["mode"] = "conversation"
    turns: list[Any] = []
    for _ in range(_rnd(draw).randint(0 if _rnd(draw).random() < 0.05 else 1, 3)):
        turn: dict[str, Any] = {}
        if _rnd(draw).random() < 0.95:
            turn["input"] = _rnd(draw).choice(
                [_text(draw), [_segment(draw)], {"role": "user", "content": "hi"}]
            )
        if _rnd(draw).random() < 0.4:
            turn["expected_output"] = _rnd(draw).choice(
                [_text(draw), "", {"role": "assistant", "content": "ok"}, 0, 1, float("nan")]
            )
        if _rnd(draw).random() < 0.5:
            turn["assertions"] = [_grader(draw) for _ in range(_rnd(draw).randint(0, 2))]
        turns.append(turn if _rnd(draw).random() < 0.97 else _rnd(draw).choice(["a string turn", 7]))
    test["turns"] = turns
    if _rnd(draw).random() < 0.25:
        test["window_size"] = _rnd(draw).choice([1, 2, 1.5, 0, "2"])


def _dump(draw: st.DrawFn, value: Any) -> str:
    flow = _rnd(draw).choice([False, False, None, True])
    style = _rnd(draw).choice([None, None, None, '"', "'", "|"])
    width = _rnd(draw).choice([80, 20, 1000])
    try:
        text = yaml.safe_dump(
            value,
            allow_unicode=True,
            sort_keys=False,
            default_flow_style=flow,
            default_style=style,
            width=width,
        )
    except yaml.YAMLError:
        text = json.dumps(value, ensure_ascii=False)  # JSON is YAML too
    return text


def _finish(draw: st.DrawFn, text: str) -> str:
    """Odd whole-file layouts: CRLF, a BOM, a leading comment, a document marker."""
    if _rnd(draw).random() < 1 / 7:
        text = text.replace("\n", "\r\n")
    if _rnd(draw).random() < 1 / 11:
        text = "\ufeff" + text
    if _rnd(draw).random() < 1 / 9:
        text = "# generated\n---\n" + text
    return text


# -- YAML constructs where libyaml and eemeli/yaml (the runtime's YAML library) part ----------------
# A hand-written eval file (the dumper above never writes these): block scalars opening with a tab
# (pasted Go or a Makefile) or with an indentation indicator before a line of spaces, escaped line
# breaks before a blank line, tabs after `-` and `:`, anchors defined twice or with a `:` in the
# name, `?x` and `:x` in flow, tags, `%YAML` directives, glued comments. Flow collections as
# keys, unknown tags and directives, and tags a value does not fit (`!!int 1.5`) are left out:
# the runtime then prints a Node process warning carrying its process id, which no reader can
# reproduce.


def _yaml_field_value(draw: st.DrawFn, indent: str) -> str:
    """A field's value as YAML text (after `key:`), drawn from the constructs above."""
    words = _rnd(draw).choice(["hi", "yes", "on", "012", "1_000", "a: b", "x # y", "é🎉"])
    refused = [  # the runtime cannot load the file: rare, or few files would load
        f" |\n{indent}   \n{indent}  {words}\n",  # a more-indented blank line first
        f' "{words}"# glued comment\n',
        f" [{words!r}]#glued\n",
    ]
    if _rnd(draw).random() < 1 / 25:
        return _rnd(draw).choice(refused)
    choices = [
        f" |\n{indent}\tfmt.Println({words!r})\n{indent}}}\n",
        f" |-\n{indent}all:\n{indent}\tgo build ./...\n",
        f" |2\n{indent}     \n{indent}  indented {words}\n",
        f" >2-\n{indent} \n{indent}  folded\n{indent}  {words}\n",
        f' "first \\\n\n{indent}second"\n',
        f' "a\\\n{indent}  \n\n{indent}b"\n',
        f"\t{words}\n",
        f" ! {_rnd(draw).choice(['12', 'true', 'null'])}\n",
        f" !!str {_rnd(draw).choice(['12', 'true'])}\n",
        " !!int " + _rnd(draw).choice(['"12"', "0x1F"]) + "\n",
        f" [?x, :y, {words!r}]\n",
        " {?k: v, z: :w}\n",
        f" {words}\n",
    ]
    return _rnd(draw).choice(choices)


def _yaml_quirks_file(draw: st.DrawFn) -> str:
    """A whole eval file written by hand with the YAML constructs above."""
    lines: list[str] = []
    directive = _rnd(draw).choice(
        ["", "", "%YAML 1.1\n---\n", "%YAML 1.2\n---\n", "%YAML 1.1\n%YAML 1.2\n---\n"]
    )
    anchor = _rnd(draw).choice(["c", "c:1", "a:b"])
    lines.append(f"description: &{anchor} Checks the answer.\n")
    lines.append("tests:\n")
    for i in range(_rnd(draw).randint(1, 3)):
        lines.append(f"  - id: y{i}\n")
        criteria = _rnd(draw).choice(
            [f" *{anchor}", " Says hello.", _yaml_field_value(draw, "      ").rstrip("\n")]
        )
        lines.append(f"    criteria:{criteria}\n")
        lines.append(f"    input:{_yaml_field_value(draw, '      ')}")
        if _rnd(draw).random() < 0.4:
            lines.append(f"    expected_output:{_yaml_field_value(draw, '      ')}")
        if _rnd(draw).random() < 0.3:
            lines.append(f"    metadata:\n      tags:\n        -\t{_rnd(draw).choice(['x', 'on', '012'])}\n")
        if _rnd(draw).random() < 0.2:
            lines.append(f"    note: &{anchor} again\n    again: *{anchor}\n")
    return directive + "".join(lines)


# -- merge keys (`<<`), which the runtime applies (`parse(text, {merge: true})`) -----------------
# Shared test defaults in anchors, merged into tests with `<<: *a`, `<<: [*a, *b]` or repeated `<<`
# lines, explicit keys before and after the merge, anchors merging anchors, merged grader items,
# now and then a merge the runtime refuses (`<<: 5`) or a quoted `"<<"` (a plain key, no merge).
_MERGE_FIELDS = {
    "criteria": ["Base criteria.", "Answers politely."],
    "input": ["Base question", "Say hello."],
    "expected_output": ["Hello.", "4"],
}


def _merge_keys_file(draw: st.DrawFn) -> str:
    """A whole eval file sharing test defaults through anchors and merge keys."""
    rnd = _rnd(draw)
    host = rnd.choice(["defaults", "x-shared", "metadata"])  # where the anchors are written
    lines = [f"description: Shared defaults\n{host}:\n"]
    names: list[str] = []
    for n in range(rnd.randint(1, 3)):
        name = f"a{n}"
        fields = [(k, rnd.choice(v)) for k, v in _MERGE_FIELDS.items() if rnd.random() < 0.5]
        if names and rnd.random() < 0.3:
            fields.insert(rnd.randint(0, len(fields)), ("<<", f"*{rnd.choice(names)}"))
        if rnd.random() < 0.2:
            fields.append(("metadata", "{team: core}"))
        if rnd.random() < 0.5:
            lines.append(f"  {name}: &{name} {{{', '.join(f'{k}: {v}' for k, v in fields)}}}\n")
        else:
            lines.append(f"  {name}: &{name}\n" + "".join(f"    {k}: {v}\n" for k, v in fields))
            if not fields:
                lines[-1] = f"  {name}: &{name} {{}}\n"
        names.append(name)
    grader = rnd.random() < 0.3
    if grader:
        lines.append("  grader: &grader {type: contains, value: hello}\n")
    lines.append("tests:\n")
    for i in range(rnd.randint(1, 3)):
        entries: list[str] = []
        merges = rnd.choice(
            [
                [f"<<: *{rnd.choice(names)}"],
                [f"<<: [{', '.join('*' + n for n in rnd.sample(names, rnd.randint(1, len(names))))}]"],
                [f"<<: *{rnd.choice(names)}", f"<<: *{rnd.choice(names)}"],
                [f"<<: {{criteria: {rnd.choice(_MERGE_FIELDS['criteria'])}}}"],
            ]
        )
        if rnd.random() < 1 / 20:
            merges.append(rnd.choice(["<<: 5", "<<: [*a0, 3]", '"<<": *a0']))
        entries.extend(merges)
        for key, values in _MERGE_FIELDS.items():
            if rnd.random() < 0.25:
                entries.append(f"{key}: {rnd.choice(values)} (here)")
        if grader and rnd.random() < 0.5:
            entries.append("assertions:\n      - <<: *grader\n        value: " + rnd.choice(["hi", "hello"]))
        rnd.shuffle(entries)
        lines.append(f"  - id: m{i}\n" + "".join(f"    {entry}\n" for entry in entries))
    return "".join(lines)


@st.composite
def repos(draw: st.DrawFn) -> GeneratedRepo:
    _CURRENT[0] = draw(st.randoms(use_true_random=True))
    repo = GeneratedRepo()
    repo.files.update(_TEXT_FILES)
    repo.files["evals/pic.png"] = _PNG
    repo.files["evals/check.py"] = _CHECK_SCRIPT
    count = 0 if _rnd(draw).random() < 0.05 else _rnd(draw).randint(1, 4)
    tests = [_test(draw, i) for i in range(count)]
    suite: dict[str, Any] = {}
    if _rnd(draw).random() < 0.5:
        suite["description"] = _text(draw)
    if _rnd(draw).random() < 1 / 5:
        suite["input"] = _rnd(draw).choice(
            [_text(draw), [{"role": "system", "content": "You are terse."}], [_message(draw)]]
        )
    if _rnd(draw).random() < 1 / 6:
        suite["input_files"] = _rnd(draw).sample(FILE_REFS, _rnd(draw).randint(0, 2))
    if _rnd(draw).random() < 1 / 5:
        suite["assertions"] = [_grader(draw) for _ in range(_rnd(draw).randint(1, 2))]
    if _rnd(draw).random() < 1 / 7:
        suite["metadata"] = {"suite_owner": "team"}
    if _rnd(draw).random() < 0.1:
        # a project config: only its warnings matter to loading (and the check reads it)
        config = _rnd(draw).choice(
            [
                {"required_version": ">=4.0.0"},
                {"required_version": 4},
                {"eval_patterns": ["**/*.eval.yaml"]},
                {"eval_patterns": "*.yaml"},
                {"eval_patterns": [1]},
                {"execution": {"verbose": "yes", "keep_workspaces": True}},
                {"execution": {"max_retries": "x"}},
                "just a string",
            ]
        )
        where_config = _rnd(draw).choice([".agentv/config.yaml", "evals/.agentv/config.yaml"])
        repo.files[where_config] = _dump(draw, config) if _rnd(draw).random() < 0.9 else "a: [unclosed\n"
    repo.eval_file = _rnd(draw).choice(["evals/gen.eval.yaml"] * 6 + ["root.eval.yml"])
    base = repo.eval_file.rpartition("/")[0]
    base = base + "/" if base else ""
    where = _rnd(draw).choices(["inline", "yaml", "jsonl", "dir", "missing-key", "odd"], [12, 2, 2, 2, 1, 1])[
        0
    ]
    if where == "inline":
        suite["tests"] = tests
        if tests and _rnd(draw).random() < 0.1:
            # part of the list in another file, named by a file:// entry (or a glob of them)
            cut = _rnd(draw).randint(0, len(tests))
            repo.files[f"{base}more/extra.yaml"] = _dump(draw, tests[cut:])
            tests[cut:] = [
                _rnd(draw).choice(["file://more/extra.yaml", "file://more/*.yaml", "file://missing.yaml"])
            ]
    elif where == "yaml":
        suite["tests"] = "./cases.yaml"
        repo.files[f"{base}cases.yaml"] = _finish(draw, _dump(draw, tests))
    elif where == "jsonl":
        suite["tests"] = "./cases.jsonl"
        lines = [json.dumps(t, ensure_ascii=_rnd(draw).random() < 0.5) for t in tests]
        if _rnd(draw).random() < 1 / 6:
            lines.insert(
                _rnd(draw).randint(0, len(lines)), _rnd(draw).choice(["", "   ", "{not json", "[1, 2]"])
            )
        repo.files[f"{base}cases.jsonl"] = "\n".join(lines) + _rnd(draw).choice(["\n", "", "\r\n"])
    elif where == "dir":
        suite["tests"] = "./cases"
        for i, t in enumerate(tests):
            repo.files[f"{base}cases/c{i}/case.yaml"] = _dump(draw, t)
        if not tests:
            repo.files[f"{base}cases/.keep"] = ""
    elif where == "odd":
        suite["tests"] = _rnd(draw).choice([42, {"id": "x"}, "./missing.yaml", None, "./cases.txt"])
    if where != "missing-key" and "tests" in suite and _rnd(draw).random() < 0.5:
        suite = {"tests": suite.pop("tests"), **suite}  # key order varies
    text = _dump(draw, suite) if suite else _rnd(draw).choice(["", "{}\n", "tests:\n"])
    if _rnd(draw).random() < 1 / 41:
        text += _rnd(draw).choice(["\n  bad: indentation\n", "tests: [\n", "\tkey: tab\n"])
    if _rnd(draw).random() < 1 / 8:
        text = _yaml_quirks_file(draw)
    repo.files[repo.eval_file] = _finish(draw, text)
    if _rnd(draw).random() < 1 / 8:  # drawn last: the draws above stay those of earlier seeds
        repo.files[repo.eval_file] = _finish(draw, _merge_keys_file(draw))
    return repo
