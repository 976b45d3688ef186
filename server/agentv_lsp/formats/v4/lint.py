"""AgentV's best-practice rules for 4.x eval files, as editor diagnostics.

The agentv@4.42.4 package ships an eval-review skill whose `scripts/lint_eval.py` checks a
suite for habits that make evals weak or brittle. The same rules, on the parsed document,
with ranges, our own codes (`v4-lint-...`) and, where an edit settles the matter, a fix in
`data["fix"]`: `{"kind": "replace", "span": [l0, c0, l1, c1], "text": ...}` (an empty span
inserts; lines and columns 0-based, as in `Span`) or `{"kind": "rename-file", "to": name}`.

None of these stop AgentV: the shipped linter's errors are warnings here, its warnings
warnings or information, its notes information. Where the runtime itself skips a test
(no id, no input, nothing to grade with) the checks say so too; the lint rule adds the
eval-review wording. A file that does not parse, whose root is not a mapping, or that is one
test of a tests directory (`cases/<name>/case.yaml`) is left to the other checks.
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode

from agentv_lsp.checks.model import Diagnostic, Severity
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v4.keys import V4_KEYS, Keys
from agentv_lsp.formats.v4.schema import file_kind
from agentv_lsp.yamlpos import Span, YamlDocument

JsonPath = tuple[str | int, ...]

# The shipped linter's patterns for grading prose in `expected_output` (in its order).
PROSE_PATTERNS = (
    r"[Tt]he agent should",
    r"[Ss]hould identify",
    r"[Ss]hould flag",
    r"[Ss]hould recommend",
    r"[Ss]hould produce",
    r"[Ss]hould detect",
    r"[Ss]hould load",
    r"[Ss]hould run",
)
_PROSE = [re.compile(p) for p in PROSE_PATTERNS]


def lint_v4(
    path: str, doc: YamlDocument, fs: FileSystem | None = None, keys: Keys = V4_KEYS
) -> list[Diagnostic]:
    """Best-practice diagnostics for one 4.x eval file, in document order (`fs`: where its
    folder is listed, the disk by default; `keys`: its key names)."""
    if doc.error is not None or not isinstance(doc.value, dict) or file_kind(path, doc.value, keys) != "eval":
        return []
    linter = _Linter(os.path.abspath(path), doc, fs or FileSystem(), keys)
    linter.run()
    return sorted(linter.found, key=Diagnostic.sort_key)


class _Linter:
    def __init__(self, path: str, doc: YamlDocument, fs: FileSystem, keys: Keys) -> None:
        self.k = keys
        self.path = path
        self.fs = fs
        self.doc = doc
        self.suite: dict[str, Any] = doc.value
        self.found: list[Diagnostic] = []

    def add(
        self,
        code: str,
        severity: Severity,
        message: str,
        where: JsonPath,
        *,
        key: bool = False,
        span: Span | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        self.found.append(
            Diagnostic(
                self.path,
                span or self.doc.span_of(where, key=key),
                severity,
                f"v4-lint-{code}",
                message,
                where,
                data or {},
            )
        )

    # -- the suite ----------------------------------------------------------------------
    def run(self) -> None:
        self.file_name()
        self.naming_prefix()
        if "description" not in self.suite:
            self.add(
                "description",
                "information",
                "The suite has no 'description': add one line saying what it checks "
                "(AgentV eval-review: \"Missing top-level 'description' field\").",
                (),
                span=self.first_key_span(),
                data=self.insert_top_level('description: ""'),
            )
        k = self.k
        tests = self.suite.get(k.tests, [])
        if isinstance(tests, str):
            return  # tests in another file: linted there
        if not isinstance(tests, list):
            self.add(
                "tests-not-list",
                "warning",
                f"'{k.tests}' is neither a list of tests nor a path to a tests file, so the suite has no tests.",
                (k.tests,),
                key=True,
            )
            return
        if not tests:
            self.add(
                "no-tests", "warning", "The suite defines no tests.", (k.tests,), key=k.tests in self.suite
            )
            return
        files_per_test: list[list[tuple[str, JsonPath]]] = []
        for index, test in enumerate(tests):
            if isinstance(test, dict):
                files_per_test.append(self.test(index, test))
        self.repeated_files(files_per_test)

    def file_name(self) -> None:
        name = os.path.basename(self.path)
        if name.endswith(".eval.yaml"):
            return
        stem = (
            re.sub(r"(\.eval)?\.ya?ml$", "", name, flags=re.IGNORECASE)
            if name.lower().endswith((".yaml", ".yml"))
            else name
        )
        wanted = f"{stem}.eval.yaml"
        loads = name.lower().endswith((".eval.yaml", ".eval.yml"))
        self.add(
            "file-name",
            "information" if loads else "warning",
            f"Name eval files '*.eval.yaml' (rename '{name}' to '{wanted}')"
            + (
                "."
                if loads
                else ": `agentv validate` only checks '*.eval.yaml' / '*.eval.yml' files"
                + (
                    " (`agentv eval run DIR` runs `eval.yaml` too)."
                    if name in ("eval.yaml", "eval.yml")
                    else ", `agentv eval run DIR` only those and `eval.yaml`."
                )
            ),
            (),
            span=self.first_key_span(),
            data={"fix": {"kind": "rename-file", "to": wanted}},
        )

    def naming_prefix(self) -> None:
        """Eval files in one folder should share a naming prefix (`review-a`, `review-b`)."""
        prefixes = _folder_prefixes(os.path.dirname(self.path), self.fs)
        if prefixes is None:
            return
        own = _prefix(os.path.basename(self.path))
        if len(prefixes) < 2 or own is None:
            return
        ranked = prefixes.most_common()
        majority = ranked[0][0] if ranked[0][1] > ranked[1][1] else None
        if own == majority:
            return
        listed = ", ".join(sorted(prefixes))
        self.add(
            "naming-prefix",
            "information",
            f"The YAML files in this folder use different naming prefixes ({listed}); this file uses '{own}'"
            + (f", most use '{majority}'." if majority else "."),
            (),
            span=self.first_key_span(),
            data={
                "prefixes": sorted(prefixes),
                "prefix": own,
                **({"majority": majority} if majority else {}),
            },
        )

    # -- one test ------------------------------------------------------------------------
    # Runs for every test: the label and paths are built only for a finding.
    def test(self, index: int, test: dict[str, Any]) -> list[tuple[str, JsonPath]]:
        k = self.k
        if k.id not in test:
            where: JsonPath = (k.tests, index)
            self.add(
                "test-id",
                "warning",
                f"The test at {k.tests}[{index}] has no '{k.id}': AgentV skips it. Give it a unique id.",
                where,
                data=self.insert_into_test(where, f"{k.id}: {self.free_id(index)}"),
            )
        if k.input not in test and self.suite.get(k.input) is None:
            self.add(
                "test-input",
                "warning",
                f"{_label(index, test, k)} has no '{k.input}' and the suite has none: AgentV skips it.",
                self.test_anchor((k.tests, index), test),
                key=True,
            )
        if not (k.criteria in test or k.expected_output in test or k.assertions in test):
            turns = test.get(k.turns)  # the loader's `hasSpec` counts a conversation's turns (and `assert`)
            graded = k.deprecated_assertions in test or (isinstance(turns, list) and len(turns) > 0)
            verdict = (
                f"AgentV still runs it: its '{k.turns}' or '{k.deprecated_assertions}' count"
                if graded
                else "AgentV skips it: 'Skipping incomplete test'"
            )
            self.add(
                "test-grading",
                "warning",
                f"{_label(index, test, k)} needs at least one of '{k.criteria}', '{k.expected_output}', "
                f"'{k.assertions}' to be graded ({verdict}).",
                self.test_anchor((k.tests, index), test),
                key=True,
                data=self.insert_into_test((k.tests, index), f"{k.criteria}: {CRITERIA_PLACEHOLDER}"),
            )
        if k.expected_output in test:
            if k.assertions not in test:
                self.no_assertions(index, test)
            expected = test[k.expected_output]
            # all patterns contain "hould": most string answers need no closer look
            if not isinstance(expected, str) or "hould" in expected:
                self.expected_prose(index, test)
        input_value = test.get(k.input)
        if not isinstance(input_value, list):
            return []  # no message list, no file segments
        files = _file_values(input_value, (k.tests, index, k.input))
        for value, value_path in files:
            if value[0] != "/":  # (values are not empty)
                # `./x` and `x` resolve alike: suggest `/x`, not `/./x`
                dot = 2 if value.startswith("./") else 0
                node = self.doc.node_at(value_path)
                fix = self.prepend_slash(node, replace=dot)
                self.add(
                    "file-path",
                    "information",
                    f"Write file paths with a leading '/' ('/{value[dot:]}'): AgentV then looks the path up from "
                    "each search root (the eval file's folder up to the repository root) the same way, "
                    "and the eval-review guidelines expect it.",
                    value_path,
                    # a scalar's range is what `span_of` would find again from the root
                    span=Span.of(node) if isinstance(node, ScalarNode) else None,
                    data={"value": value, **({"fix": fix} if fix else {})},
                )
        return files

    def no_assertions(self, index: int, test: Mapping[str, Any]) -> None:
        k = self.k
        self.add(
            "no-assertions",
            "information",
            f"{_label(index, test, k)} relies on '{k.expected_output}' alone: add deterministic "
            f"'{k.assertions}' (contains, regex, equals, is-json, ...) where the answer allows it.",
            (k.tests, index, k.expected_output),
            key=True,
        )

    def expected_prose(self, index: int, test: Mapping[str, Any]) -> None:
        k = self.k
        expected = test[k.expected_output]
        if isinstance(expected, str):
            text = expected
        elif isinstance(expected, list):
            text = "".join(
                [
                    m.get("content", "")
                    for m in expected
                    if isinstance(m, dict) and isinstance(m.get("content", ""), str)
                ]
            )
        else:
            return
        if "hould" not in text:  # in every pattern: most texts need no pattern run at all
            return
        where: JsonPath = (k.tests, index)
        match = next((m for m in (p.search(text) for p in _PROSE) if m is not None), None)
        if match is None:
            return
        data: dict[str, Any] = {"phrase": match.group(0)}
        if isinstance(expected, str) and k.criteria not in test:
            key = self.doc.key_node_at((*where, k.expected_output))
            if key is not None:
                data["fix"] = {"kind": "replace", "span": _span_list(Span.of(key)), "text": k.criteria}
        self.add(
            "expected-prose",
            "warning",
            f"{_label(index, test, k)}: '{k.expected_output}' reads like grading instructions "
            f"('{match.group(0)} ...'). It is given to graders as the reference answer; put instructions "
            f"in '{k.criteria}' or '{k.assertions}'.",
            (*where, k.expected_output),
            data=data,
        )

    def repeated_files(self, files_per_test: list[list[tuple[str, JsonPath]]]) -> None:
        """A file given to every test belongs in the suite-level `input`."""
        k = self.k
        if len(files_per_test) < 2 or self.suite.get(k.input) or not all(files_per_test):
            return  # (a test without files: none is common to all)
        common = set.intersection(*({value for value, _ in files} for files in files_per_test))
        for value in sorted(common):
            occurrences = [next(p for v, p in files if v == value) for files in files_per_test]
            self.add(
                "repeated-file",
                "information",
                f"Every test reads '{value}': give it once in the suite-level '{k.input}' "
                f"(or '{k.input_files}') instead of in each of the {len(occurrences)} tests.",
                occurrences[0],
                data={
                    "file": value,
                    "occurrences": [_span_list(self.doc.span_of(p)) for p in occurrences],
                },
            )

    # -- places and edits ----------------------------------------------------------------
    def first_key_span(self) -> Span:
        root = self.doc.root
        if isinstance(root, MappingNode) and root.value:
            return Span.of(root.value[0][0])
        return Span(0, 0, 0, 0)

    def test_anchor(self, where: JsonPath, test: Mapping[str, Any]) -> JsonPath:
        """Where a test-level problem is shown: its `id` key, else the test itself."""
        return (*where, self.k.id) if self.k.id in test else where

    def insert_top_level(self, line: str) -> dict[str, Any]:
        root = self.doc.root
        if not isinstance(root, MappingNode) or root.flow_style or not root.value:
            return {}
        first = Span.of(root.value[0][0])
        return {
            "fix": {
                "kind": "replace",
                "span": [first.start_line, 0, first.start_line, 0],
                "text": line + "\n",
            }
        }

    def insert_into_test(self, where: JsonPath, line: str) -> dict[str, Any]:
        node = self.doc.node_at(where)
        if not isinstance(node, MappingNode) or node.flow_style or not node.value:
            return {}
        first = Span.of(node.value[0][0])
        text = f"{line}\n{' ' * first.start_col}"
        return {"fix": {"kind": "replace", "span": [first.start_line, first.start_col] * 2, "text": text}}

    def free_id(self, index: int) -> str:
        tests = self.suite.get(self.k.tests)
        taken = {t.get(self.k.id) for t in tests if isinstance(t, dict)} if isinstance(tests, list) else set()
        candidate, n = f"test-{index}", 2
        while candidate in taken:
            candidate, n = f"test-{index}-{n}", n + 1
        return candidate

    def prepend_slash(self, node: Node | None, replace: int = 0) -> dict[str, Any] | None:
        """A `/` before the value `node`, over its first `replace` characters (a leading `./`)."""
        if not isinstance(node, ScalarNode) or node.style not in ("", None, "'", '"'):
            return None  # a block scalar: no one-character edit
        plain = not node.style
        line, col = node.start_mark.line, node.start_mark.column + (0 if plain else 1)
        return {"kind": "replace", "span": [line, col, line, col + replace], "text": "/"}


# what the quick fix for a test without grading inserts, for the author to replace
CRITERIA_PLACEHOLDER = "Describe what a correct answer does"


def _label(index: int, test: Mapping[str, Any], keys: Keys) -> str:
    """How messages name a test: by its id (`test-<index>` when it has none), by its place
    when the id is not a string."""
    test_id = test.get(keys.id, _NO_ID)
    if isinstance(test_id, str):
        return f"Test '{test_id}'"
    return f"Test 'test-{index}'" if test_id is _NO_ID else f"The test at {keys.tests}[{index}]"


_NO_ID = object()


def _file_values(input_value: Any, where: JsonPath) -> list[tuple[str, JsonPath]]:
    """`type: file` values in a message-list input, with their paths (as the shipped linter
    reads them: content lists of messages only, non-empty values)."""
    out: list[tuple[str, JsonPath]] = []
    if not isinstance(input_value, list):
        return out
    for m, message in enumerate(input_value):
        if not (isinstance(message, dict) and isinstance(content := message.get("content"), list)):
            continue  # most messages: text
        for s, segment in enumerate(content):
            if isinstance(segment, dict) and segment.get("type") == "file":
                value = segment.get("value", "")
                if isinstance(value, str) and value:
                    out.append((value, (*where, m, "content", s, "value")))
    return out


# Naming prefixes of the YAML files per folder, by the folder's modification time (a file
# added, removed or renamed changes it): every eval file of a folder of many would list it.
# A folder changed in the last seconds is listed again (its time may not have moved yet: the
# clock that stamps it is coarse), as git does with racily clean files.
_SETTLED_NS = 2_000_000_000
_PREFIXES: dict[str, tuple[int, Counter[str]]] = {}


def _folder_prefixes(folder: str, fs: FileSystem) -> Counter[str] | None:
    """How many YAML files in `folder` use each naming prefix (None: it cannot be read)."""
    try:
        stamp = fs.stat(folder).st_mtime_ns
        cached = _PREFIXES.get(folder)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        names = sorted(
            entry.name
            for entry in fs.scandir(folder)
            if entry.name.endswith((".yaml", ".yml")) and entry.is_file()
        )
    except OSError:
        return None
    prefixes = Counter(p for p in (_prefix(n) for n in names) if p is not None)
    if time.time_ns() - stamp > _SETTLED_NS:
        if len(_PREFIXES) >= 256:
            _PREFIXES.clear()
        _PREFIXES[folder] = (stamp, prefixes)
    return prefixes


def _prefix(name: str) -> str | None:
    """The naming prefix of a YAML file name: the part before the first '-', if any."""
    stem = name.rsplit(".", 1)[0].replace(".eval", "")
    parts = stem.split("-")
    return parts[0] if len(parts) >= 2 else None


def _span_list(span: Span) -> list[int]:
    return [span.start_line, span.start_col, span.end_line, span.end_col]


def iter_codes() -> Iterator[str]:
    """Every code `lint_v4` can emit (for documentation and tests)."""
    yield from (
        "v4-lint-file-name",
        "v4-lint-naming-prefix",
        "v4-lint-description",
        "v4-lint-tests-not-list",
        "v4-lint-no-tests",
        "v4-lint-test-id",
        "v4-lint-test-input",
        "v4-lint-test-grading",
        "v4-lint-no-assertions",
        "v4-lint-expected-prose",
        "v4-lint-file-path",
        "v4-lint-repeated-file",
    )
