"""v2 eval file (`$schema: agentv-eval-v2`, `evalcases`) -> AgentV 4.42.4 (`*.eval.yaml`, `tests`).

`migrate_text(path, text, repo_root=..., cwd=...)` returns a `Migration`: the new text, the
new file name, companion edits (grader prompt files) and a report. The text is edited in
place at the positions the YAML parser reports, so comments, order, quoting and blank
lines survive. Mapping (each line checked against the 4.42.4 runtime):

- `$schema` removed; `evalcases` -> `tests`; `outcome` -> `criteria`;
  `input_messages` -> `input`; `expected_messages` -> `expected_output`.
- evaluators: a case's `evaluators` -> `assertions`; the suite's `execution.evaluators` ->
  `execution.assertions`; a case's `execution.evaluators` stays (4.42.4 still reads it, with
  the same precedence as v2). `type: llm_judge` -> `llm-grader` with the prompt file named
  `file://<same path>` (4.42.4 reads a bare string as inline text); `type: code` ->
  `code-grader` with `script` -> `command`. v2 template variables become 4.x ones.
- v2 cases with their own evaluator list (or an `execution` block) did not inherit the
  suite's evaluators; 4.42.4 appends them unless `execution.skip_defaults: true`, so that
  line is added.
- what v2 ignored (evaluator entries it skipped, `evaluator:` kinds, keys 4.42.4 would
  honour) is commented out under a `# migrate: …` note (inside a flow collection it is cut
  out and quoted in the report), so nothing is lost and nothing new runs;
  case keys neither reads (`note`) move under `metadata:`.
- guideline files stay where they are referenced: 4.42.4 has no guidelines and inlines
  them as ordinary files in that message (the report shows the prompt change).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from agentv_lsp.engine.files import FileReadError, FileSystem
from agentv_lsp.engine.jsrt import node_resolve
from agentv_lsp.formats.v2.loader import EvalFile, is_test_message, load_all, open_eval_file
from agentv_lsp.migrate.model import CompanionChange, Finding, Migration
from agentv_lsp.migrate.textedit import (
    Edit,
    EditConflict,
    LineIndex,
    apply_edits,
    comment_out_lines,
    indent_lines,
)
from agentv_lsp.yamlpos import YamlDocument, parse_yaml

SCHEMA_V2 = "agentv-eval-v2"
EVAL_NAME = re.compile(r"\.eval\.ya?ml$", re.IGNORECASE)
_YAML_EXT = re.compile(r"\.ya?ml$", re.IGNORECASE)
NOTE = "migrate:"

# v2 judge template variables (`{{name}}`, no spaces) and their 4.42.4 names.
V2_VARIABLE = re.compile(r"\{\{([a-zA-Z0-9_]+)\}\}")
V2_TO_V4_VARIABLES = {
    "question": "input",
    "expected_outcome": "criteria",
    "reference_answer": "expected_output",
    "candidate_answer": "output",
}
V2_ONLY_VARIABLES = ("input_messages", "output_messages")
V4_REQUIRED_VARIABLE = re.compile(r"\{\{\s*(output|expected_output)\s*\}\}")

# Keys each runtime reads. A key v2 ignored but 4.42.4 reads would start doing something.
V2_SUITE_KEYS = frozenset(
    ("$schema", "evalcases", "dataset", "evaluator", "execution", "target", "description")
)
V4_SUITE_KEYS = frozenset(
    (
        "$schema", "name", "description", "category", "version", "author", "tags", "license", "requires",
        "input", "input_files", "tests", "eval_cases", "target", "execution", "assertions", "assert",
        "preprocessors", "workspace", "metadata", "governance",
    )
)  # fmt: skip
V4_CASE_KEYS = frozenset(
    (
        "id", "vars", "criteria", "input", "input_files", "expected_output", "assertions", "assert", "evaluators",
        "execution", "workspace", "metadata", "conversation_id", "suite", "depends_on", "on_dependency_failure",
        "mode", "turns", "aggregation", "on_turn_failure", "window_size", "expected_outcome", "expected_messages",
        "input_messages", "evaluator", "rubrics",
    )
)  # fmt: skip
V4_EXECUTION_KEYS = frozenset(
    (
        "targets", "workers", "assertions", "assert", "skip_defaults", "cache", "trials", "budget_usd",
        "budgetUsd", "fail_on_error", "failOnError", "threshold",
    )
)  # fmt: skip


class Unsupported(Exception):
    """The layout cannot be edited safely (flow style where lines must move): leave the file."""


def migrated_name(path: str) -> str:
    """`x.yaml` -> `x.eval.yaml` (`.yml` kept); a `*.eval.yaml` name is kept."""
    base = os.path.basename(path)
    if EVAL_NAME.search(base):
        return path
    m = _YAML_EXT.search(base)
    stem, ext = (base[: m.start()], m.group(0)) if m else (base, ".yaml")
    return os.path.join(os.path.dirname(path), f"{stem}.eval{ext}")


def is_v2_text(text: str) -> bool:
    """Cheap test before parsing: does the text declare the v2 schema at all?"""
    return SCHEMA_V2 in text


def migrate_text(
    path: str,
    text: str,
    *,
    repo_root: str,
    cwd: str,
    fs: FileSystem | None = None,
    rename: bool = True,
    prove: bool = True,
) -> Migration:
    """Migrate one eval file's text. Never raises for bad input; never touches the disk."""
    absolute = node_resolve(cwd, path)
    fs = fs if fs is not None else FileSystem()
    migration = Migration(absolute, "not-v2", text, text, absolute)
    doc = parse_yaml(text)
    if doc.error is not None:
        if is_v2_text(text):
            migration.status = "untouched"
            migration.findings.append(
                Finding(
                    f"not migrated: the file does not load in v2 (YAML error: {doc.error.message}); fix it first",
                    doc.error.span.start_line + 1,
                    attention=True,
                )
            )
        return migration
    suite = doc.value
    if not isinstance(suite, dict) or suite.get("$schema") != SCHEMA_V2:
        return migration
    migration.status = "untouched"
    ef = open_eval_file(absolute, repo_root=repo_root, cwd=cwd, fs=fs, text=text, doc=doc)
    if ef.load_error is not None:
        line = doc.span_of(ef.load_error_path).start_line + 1
        migration.findings.append(
            Finding(f"not migrated: v2 cannot load it ({ef.load_error}); fix it first", line, attention=True)
        )
        return migration
    outcomes = load_all(ef)
    skipped = [o for o in outcomes if o.case is None]
    if skipped:
        for o in skipped:
            why = "; ".join(n.message for n in o.notices) or "skipped"
            migration.findings.append(
                Finding(
                    f"not migrated: v2 skips evalcases[{o.index}] ({why}); fix or remove it first",
                    doc.span_of(("evalcases", o.index)).start_line + 1,
                    attention=True,
                )
            )
        return migration
    builder = _Builder(ef, doc, text)
    try:
        builder.run()
        new_text = apply_edits(text, builder.edits)
    except (Unsupported, EditConflict) as exc:
        migration.findings.append(
            Finding(
                f"not migrated: {exc}; edit this part by hand or use block style",
                builder.line,
                attention=True,
            )
        )
        return migration
    migration.status = "migrated"
    migration.new_text = new_text
    migration.new_path = migrated_name(absolute) if rename else absolute
    migration.findings.extend(sorted(builder.findings, key=lambda f: f.line or 0))
    migration.companions.extend(builder.companions.values())
    if migration.new_path != absolute:
        migration.findings.insert(
            0,
            Finding(
                f"renamed to {os.path.basename(migration.new_path)}: AgentV 4.42.4 only finds *.eval.yaml files"
            ),
        )
    for outcome in outcomes:
        for notice in outcome.notices:
            where = doc.span_of(notice.yaml_path).start_line + 1 if notice.yaml_path else None
            migration.findings.append(
                Finding(f"v2 warned (unchanged by the migration): {notice.message}", where)
            )
    for outcome in outcomes:
        if outcome.case is None:
            continue
        for ref in outcome.case.file_refs:
            if ref.guideline_pattern is None:
                continue
            message = ref.yaml_path[3] if len(ref.yaml_path) > 3 else None
            role = _role_at(suite, outcome.index, message)
            migration.findings.append(
                Finding(
                    f"case '{outcome.case.id}': guideline {ref.raw} (matched '{ref.guideline_pattern}'): v2 sent "
                    "its content in the system prompt's Guidelines section; 4.42.4 has no guidelines, so it goes "
                    f'inline, as a <file path="{ref.raw}"> block in the {role} message that references it '
                    "(see the case's LM question below)",
                    doc.span_of(ref.yaml_path).start_line + 1,
                )
            )
    for outcome in outcomes:
        if outcome.case is not None and any(m.get("role") == "tool" for m in outcome.case.input_messages):
            migration.findings.append(
                Finding(
                    f"case '{outcome.case.id}': `agentv validate` 4.42.4 rejects the 'tool' role, as v2's did "
                    "(the runtime loads and runs it)",
                    doc.span_of(("evalcases", outcome.index, "input_messages")).start_line + 1,
                )
            )
    if ef.config.path is not None:
        migration.findings.append(
            Finding(
                "the v2 config's guideline_patterns have no meaning in 4.42.4, which ignores them silently "
                "(the file can stay; guideline files are now ordinary files, see below)",
                file=ef.config.path,
            )
        )
    if prove:
        from agentv_lsp.migrate.proof import prove_migration

        try:
            prove_migration(migration, ef, outcomes, fs)
        except Exception as exc:  # the v4 engine is ours too: a bug there must not stop a migration
            migration.cases.clear()
            migration.findings.append(
                Finding(f"no proof: agentv-lsp's 4.42.4 preview failed ({type(exc).__name__}: {exc})")
            )
    return migration


@dataclass
class _Builder:
    ef: EvalFile
    doc: YamlDocument
    text: str
    edits: list[Edit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    companions: dict[str, CompanionChange] = field(default_factory=dict)
    line: int | None = None  # where the current step works (for Unsupported reports)
    flow_removed: str | None = None  # text just cut out of a flow collection, for the next note

    def __post_init__(self) -> None:
        self.index = LineIndex(self.text)
        # nodes written inside a flow collection ({…} or […]): lines cannot be commented out there
        self.in_flow: set[int] = set()
        if self.doc.root is not None:
            self._mark_flow(self.doc.root, False)

    def _mark_flow(self, node: Node, inside: bool) -> None:
        stack = [(node, inside)]
        seen: set[int] = set()
        while stack:
            current, flow = stack.pop()
            if flow:
                self.in_flow.add(id(current))
            if id(current) in seen:
                continue
            seen.add(id(current))
            child_flow = flow or (
                isinstance(current, MappingNode | SequenceNode) and bool(current.flow_style)
            )
            if isinstance(current, MappingNode):
                for k, v in current.value:
                    stack.append((k, child_flow))
                    stack.append((v, child_flow))
            elif isinstance(current, SequenceNode):
                stack.extend((item, child_flow) for item in current.value)

    # -- helpers ------------------------------------------------------------------------
    def note(self, message: str, node: Node | None, attention: bool = False) -> None:
        line = node.start_mark.line + 1 if node is not None else None
        if self.flow_removed is not None:
            message = f"{message.replace('commented out', 'removed')} (it read: {self.flow_removed})"
            self.flow_removed = None
        self.findings.append(Finding(message, line, attention))

    def pairs(self, node: Node | None) -> list[tuple[ScalarNode, Node]]:
        if not isinstance(node, MappingNode):
            return []
        return [(k, v) for k, v in node.value if isinstance(k, ScalarNode)]

    def pair(self, node: Node | None, key: str) -> tuple[ScalarNode, Node] | None:
        found = None
        for k, v in self.pairs(node):
            if k.value == key:
                found = (k, v)  # the last one wins, as in the runtime
        return found

    def rename_key(self, key: ScalarNode, new: str) -> None:
        self.edits.append(Edit(self.index.start_of(key), self.index.end_of(key), new))

    def replace_scalar(self, value: Node, new: str) -> None:
        self.edits.append(Edit(self.index.start_of(value), self.index.end_of(value), new))

    def last_line(self, node: Node) -> int:
        if isinstance(node, MappingNode | SequenceNode) and not node.flow_style and node.value:
            last = node.value[-1]
            return self.last_line(last[1] if isinstance(last, tuple) else last)
        return self.index.last_line_of(node)

    def entry_lines(self, key: Node, value: Node) -> tuple[int, int]:
        """Lines of a block mapping entry; Unsupported when the key shares its line with others."""
        self.line = key.start_mark.line + 1
        if id(key) in self.in_flow:
            raise Unsupported(
                f"'{getattr(key, 'value', '?')}' would have to be commented out inside a flow mapping"
            )
        if not self.index.only_space_before(key):
            raise Unsupported(f"the key '{getattr(key, 'value', '?')}' shares its line with other content")
        return key.start_mark.line, self.last_line(value)

    def item_lines(self, item: Node) -> tuple[int, int]:
        """Lines of a block sequence item (its `- ` line through its last line)."""
        self.line = item.start_mark.line + 1
        if id(item) in self.in_flow:
            raise Unsupported("an entry v2 ignored would have to be commented out inside a flow list")
        before = self.text[self.index.line_start(item.start_mark.line) : self.index.start_of(item)]
        if not re.fullmatch(r"[ ]*-[ ]+", before):
            raise Unsupported("a list item shares its line with other content (flow style)")
        return item.start_mark.line, self.last_line(item)

    def comment_entry(self, key: ScalarNode, value: Node, reason: str) -> None:
        if id(key) in self.in_flow:  # no line of its own: remove it and name it in the report
            self.remove_from_flow(self.index.start_of(key), self.index.end_of(value))
            return
        first, last = self.entry_lines(key, value)
        self.edits.extend(comment_out_lines(self.index, first, last, f"{NOTE} {reason}"))

    def comment_item(self, item: Node, reason: str) -> None:
        if id(item) in self.in_flow:
            self.remove_from_flow(self.index.start_of(item), self.index.end_of(item))
            return
        first, last = self.item_lines(item)
        self.edits.extend(comment_out_lines(self.index, first, last, f"{NOTE} {reason}"))

    def remove_from_flow(self, start: int, end: int) -> None:
        """Cut an entry out of a flow collection with one of its separating commas."""
        removed = self.text[start:end]
        after = re.match(r"[ \t]*,[ \t]*", self.text[end:])
        before = re.search(r",[ \t]*$", self.text[:start])
        if after:
            end += after.end()
        elif before:
            start = before.start()
        self.edits.append(Edit(start, end, ""))
        self.flow_removed = removed  # the caller's note names it

    # -- the mapping ------------------------------------------------------------------------
    def run(self) -> None:
        root = self.doc.root
        if not isinstance(root, MappingNode) or root.flow_style:
            self.line = 1
            raise Unsupported("the file's top level is a flow mapping")
        suite = self.doc.value
        suite_evaluators = None
        for key, value in self.pairs(root):
            name = key.value
            if name == "$schema":
                self.remove_schema(key, value)
            elif name == "evalcases":
                self.rename_key(key, "tests")
            elif name == "dataset":
                self.migrate_dataset(key, value, suite)
            elif name == "evaluator":
                self.comment_entry(
                    key, value, "the default evaluator kind: 4.42.4 has none (assertions choose the graders)"
                )
                self.note(
                    f"suite 'evaluator: {value_text(value)}' commented out (no 4.42.4 counterpart)", key
                )
            elif name == "execution":
                suite_evaluators = self.migrate_suite_execution(value)
            elif name in V2_SUITE_KEYS:
                continue
            elif name in V4_SUITE_KEYS:
                self.comment_entry(key, value, f"v2 ignored '{name}'; 4.42.4 would read it")
                self.note(
                    f"'{name}' was ignored by v2 and would change 4.42.4's behaviour: commented out", key
                )
            else:
                self.note(f"'{name}' is unknown to both v2 and 4.42.4: kept (4.42.4 validate warns)", key)
        cases = self.pair(root, "evalcases")
        if cases is not None and isinstance(cases[1], SequenceNode):
            for i, item in enumerate(cases[1].value):
                self.migrate_case(i, item, suite_evaluators)

    def remove_schema(self, key: ScalarNode, value: Node) -> None:
        first, last = self.entry_lines(key, value)
        tail = self.index.line_text(last)[value.end_mark.column :] if last == value.end_mark.line else ""
        comment = tail.strip() if tail.strip().startswith("#") else ""
        replacement = f"{' ' * key.start_mark.column}{comment}{self.index.newline}" if comment else ""
        self.edits.append(Edit(self.index.line_start(first), self.index.line_end(last), replacement))

    def migrate_dataset(self, key: ScalarNode, value: Node, suite: dict[str, Any]) -> None:
        raw = suite.get("dataset")
        trimmed = raw.strip() if isinstance(raw, str) else ""  # v2 trims it
        if re.fullmatch(r"[a-z0-9-]+", trimmed) and "name" not in suite:
            self.rename_key(key, "name")
            if trimmed != raw:
                self.replace_scalar(value, trimmed)
            self.note(f"'dataset: {raw!r}' -> 'name: {trimmed}' (4.42.4's suite name)", key)
            return
        self.comment_entry(key, value, "v2 dataset name: 4.42.4 has no 'dataset' ('name' takes [a-z0-9-]+)")
        self.note(f"'dataset: {value_text(value)}' commented out: no 4.42.4 field takes it as it is", key)

    def migrate_suite_execution(self, execution: Node) -> Node | None:
        found = self.pair(execution, "evaluators")
        for key, value in self.pairs(execution):
            if key.value in V4_EXECUTION_KEYS:
                self.comment_entry(key, value, f"v2 ignored execution.{key.value}; 4.42.4 would read it")
                self.note(f"execution.{key.value} was ignored by v2: commented out", key)
        if found is None:
            return None
        key, value = found
        self.rename_key(key, "assertions")
        self.migrate_evaluator_list(value, "the suite")
        return value if isinstance(value, SequenceNode) else None

    # -- cases ------------------------------------------------------------------------------
    def migrate_case(self, index: int, node: Node, suite_evaluators: Node | None) -> None:
        raw = self.ef.raw_cases[index]
        case_id = raw.get("id") if isinstance(raw, dict) else None
        label = f"case '{case_id}'"
        if not isinstance(node, MappingNode):
            return
        execution = self.pair(node, "execution")
        execution_dict = isinstance(raw.get("execution"), dict)
        own_in_execution = execution_dict and raw["execution"].get("evaluators") is not None
        moved_to_metadata: list[tuple[ScalarNode, Node]] = []
        for key, value in self.pairs(node):
            name = key.value
            if name == "outcome":
                self.rename_key(key, "criteria")
            elif name == "input_messages":
                self.rename_key(key, "input")
                self.drop_invalid_messages(value, raw.get("input_messages"), label, "input")
            elif name == "expected_messages":
                self.migrate_expected(key, value, raw.get("expected_messages"), label)
            elif name == "evaluator":
                self.comment_entry(
                    key, value, "evaluator kind: 4.42.4 has none (assertions choose the graders)"
                )
                self.note(
                    f"{label}: 'evaluator: {value_text(value)}' commented out (no 4.42.4 counterpart)", key
                )
            elif name == "evaluators":
                if own_in_execution:
                    self.note(
                        f"{label}: 'evaluators' kept as it is: execution.evaluators wins over it in v2 and in "
                        "4.42.4 alike",
                        key,
                    )
                    continue
                if not isinstance(raw.get("evaluators"), list) and raw.get("evaluators") is not None:
                    self.comment_entry(key, value, "v2 skipped this evaluators value (expected a list)")
                    self.note(f"{label}: 'evaluators' is not a list (v2 skipped it): commented out", key)
                    continue
                self.rename_key(key, "assertions")
                self.migrate_evaluator_list(value, label)
            elif name == "execution":
                self.migrate_case_execution(value, label)
            elif name in ("id", "conversation_id"):
                continue
            elif name in V4_CASE_KEYS or name in ("criteria",):
                self.comment_entry(key, value, f"v2 ignored '{name}'; 4.42.4 would read it")
                self.note(
                    f"{label}: '{name}' was ignored by v2 and would change 4.42.4's behaviour: commented out",
                    key,
                )
            else:
                moved_to_metadata.append((key, value))
        if moved_to_metadata:
            self.move_to_metadata(node, moved_to_metadata, label)
        inherits_in_v2 = not execution_dict and raw.get("evaluators") is None
        if suite_evaluators is not None and not inherits_in_v2:
            self.add_skip_defaults(node, execution, label)

    def migrate_expected(self, key: ScalarNode, value: Node, raw: Any, label: str) -> None:
        if not isinstance(raw, list) or not raw:
            self.comment_entry(key, value, "v2 ignored expected_messages that are not a non-empty list")
            self.note(
                f"{label}: expected_messages is empty or not a list (v2 ignored it): commented out", key
            )
            return
        self.rename_key(key, "expected_output")
        valid = self.drop_invalid_messages(value, raw, label, "expected_output")
        if valid > 1:
            self.note(
                f"{label}: {valid} expected messages: v2 took the FIRST as the reference answer, 4.42.4 takes "
                "the LAST; keep only the one that is the reference answer",
                key,
                attention=True,
            )

    def drop_invalid_messages(self, value: Node, raw: Any, label: str, where: str) -> int:
        """Comment out the messages v2 dropped silently; returns how many stay."""
        if not isinstance(raw, list) or not isinstance(value, SequenceNode):
            return 0
        kept = 0
        for item, message in zip(value.value, raw, strict=False):
            if is_test_message(message):
                kept += 1
                self.drop_valueless_text_parts(item, message, label, where)
                continue
            self.comment_item(
                item, "v2 dropped this message (unknown role, or content not text/a list of objects)"
            )
            self.note(f"{label}: a message in {where} that v2 dropped silently is commented out", item)
        return kept

    def drop_valueless_text_parts(self, item: Node, message: dict[str, Any], label: str, where: str) -> None:
        """`type: text` parts without a string `value`: v2 showed nothing of them, 4.42.4's
        validate rejects them."""
        content = message.get("content")
        found = self.pair(item, "content")
        if not isinstance(content, list) or found is None or not isinstance(found[1], SequenceNode):
            return
        for part_node, part in zip(found[1].value, content, strict=False):
            if (
                isinstance(part, dict)
                and part.get("type") == "text"
                and not isinstance(part.get("value"), str)
            ):
                self.comment_item(
                    part_node, "v2 ignored this text part (no string 'value'); 4.42.4 rejects it"
                )
                self.note(
                    f"{label}: a text part without a string value in {where} (v2 ignored it) commented out",
                    part_node,
                )

    def migrate_case_execution(self, value: Node, label: str) -> None:
        for key, item in self.pairs(value):
            if key.value == "evaluators":
                self.migrate_evaluator_list(item, label)
            elif key.value == "target":
                self.note(f"{label}: execution.target is ignored per test by v2 and by 4.42.4 alike", key)
            elif key.value in V4_EXECUTION_KEYS:
                self.comment_entry(key, item, f"v2 ignored execution.{key.value}; 4.42.4 would read it")
                self.note(f"{label}: execution.{key.value} was ignored by v2: commented out", key)

    def add_skip_defaults(
        self, case: MappingNode, execution: tuple[ScalarNode, Node] | None, label: str
    ) -> None:
        nl = self.index.newline
        if execution is not None:
            key, value = execution
            if isinstance(value, MappingNode) and value.flow_style:
                at = self.index.start_of(value) + 1
                self.edits.append(Edit(at, at, "skip_defaults: true" + (", " if value.value else "")))
            elif isinstance(value, MappingNode) and value.value:
                first = value.value[0][0]
                if not self.index.only_space_before(first):
                    self.line = first.start_mark.line + 1
                    raise Unsupported(f"{label}: execution's first key shares its line")
                at = self.index.line_start(first.start_mark.line)
                self.edits.append(Edit(at, at, f"{' ' * first.start_mark.column}skip_defaults: true{nl}"))
            else:
                self.line = key.start_mark.line + 1
                raise Unsupported(f"{label}: execution is not a mapping")
        elif case.flow_style:
            at = self.index.start_of(case) + 1
            self.edits.append(Edit(at, at, "execution: {skip_defaults: true}, "))
        else:
            anchor = next((k for k, _ in self.pairs(case)[1:] if self.index.only_space_before(k)), None)
            if anchor is None:
                self.line = case.start_mark.line + 1
                raise Unsupported(f"{label}: no line to add execution.skip_defaults at")
            pad = " " * anchor.start_mark.column
            at = self.index.line_start(anchor.start_mark.line)
            self.edits.append(Edit(at, at, f"{pad}execution:{nl}{pad}  skip_defaults: true{nl}"))
        self.note(
            f"{label}: execution.skip_defaults: true added: v2 did not give this case the suite's evaluators, "
            "4.42.4 would append them",
            case,
        )

    def move_to_metadata(self, case: MappingNode, entries: list[tuple[ScalarNode, Node]], label: str) -> None:
        names = ", ".join(k.value for k, _ in entries)
        if self.pair(case, "metadata") is not None:
            self.note(f"{label}: {names} kept in place (the case already has metadata)", entries[0][0])
            return
        nl = self.index.newline
        first_key = entries[0][0]
        first, last = self.entry_lines(*entries[0])
        pad = " " * first_key.start_mark.column
        at = self.index.line_start(first)
        self.edits.append(Edit(at, at, f"{pad}metadata:{nl}"))
        self.edits.extend(indent_lines(self.index, first, last, 2))
        moved = []
        for key, value in entries[1:]:
            lo, hi = self.entry_lines(key, value)
            if lo == last + 1:  # adjacent: indent in place
                self.edits.extend(indent_lines(self.index, lo, hi, 2))
                last = hi
                continue
            block = "".join(
                ("  " + self.index.line_text(n) if self.index.line_text(n).strip() else "") + nl
                for n in range(lo, hi + 1)
            )
            moved.append(block)
            self.edits.append(Edit(self.index.line_start(lo), self.index.line_end(hi), ""))
        if moved:
            end = self.index.line_end(last)
            tail = "" if self.text[:end].endswith(("\n", "\r")) else nl
            self.edits.append(Edit(end, end, tail + "".join(moved)))
        self.note(
            f"{label}: {names} moved under metadata: (neither v2 nor 4.42.4 reads them elsewhere)", first_key
        )

    # -- evaluators ---------------------------------------------------------------------------
    def migrate_evaluator_list(self, value: Node, owner: str) -> None:
        if not isinstance(value, SequenceNode):
            return
        for item in value.value:
            self.migrate_evaluator(item, owner)

    def migrate_evaluator(self, item: Node, owner: str) -> None:
        if not isinstance(item, MappingNode):
            self.comment_item(item, "v2 skipped this evaluator entry (expected an object)")
            self.note(f"{owner}: an evaluator entry v2 skipped (not an object) is commented out", item)
            return
        fields = {k.value: (k, v) for k, v in self.pairs(item)}
        values = {name: self.doc_value(v) for name, (_, v) in fields.items()}
        name, kind = values.get("name"), values.get("type")
        if not isinstance(name, str) or not name or kind not in ("llm_judge", "code"):
            self.comment_item(item, "v2 skipped this evaluator (invalid name or type)")
            self.note(f"{owner}: an evaluator v2 skipped (invalid name/type) is commented out", item)
            return
        if kind == "code":
            script = values.get("script")
            if not isinstance(script, str) or not script:
                self.comment_item(item, f"v2 skipped code evaluator '{name}' (no script)")
                self.note(
                    f"{owner}: code evaluator '{name}' without script (v2 skipped it) commented out", item
                )
                return
            self.replace_scalar(fields["type"][1], "code-grader")
            self.rename_key(fields["script"][0], "command")
            shell = re.search(r"[|&;<>$`*?]|\s-c\s", script)
            self.note(
                f"{owner}: evaluator '{name}': type code -> code-grader, script -> command; 4.42.4 runs the command without a shell"
                + (" (this one uses shell syntax: wrap it, e.g. [sh, -c, …])" if shell else "")
                + " and sends a different JSON payload on stdin: check the script",
                item,
                attention=True,
            )
            return
        self.replace_scalar(fields["type"][1], "llm-grader")
        prompt = values.get("prompt")
        if not isinstance(prompt, str) or not prompt:
            self.note(f"{owner}: evaluator '{name}': type llm_judge -> llm-grader", item)
            return
        node = fields["prompt"][1]
        resolved = self.ef.resolve(prompt).resolved_path
        if resolved is not None:
            self.prefix_file_scheme(node)
            self.rewrite_prompt_file(resolved, name, owner, node)
            return
        new = rewrite_variables(prompt)
        if new.missing:
            self.note(
                f"{owner}: evaluator '{name}': v2 variables {', '.join(new.missing)} have no 4.42.4 counterpart",
                node,
                attention=True,
            )
        if not new.renamed:
            self.note(f"{owner}: evaluator '{name}': type llm_judge -> llm-grader, inline prompt kept", node)
        else:
            start, end = self.index.start_of(node), self.index.end_of(node)
            source = self.text[start:end]
            self.edits.append(Edit(start, end, rewrite_variables(source).text))
            self.note(
                f"{owner}: evaluator '{name}' (type llm_judge -> llm-grader) inline prompt {prompt!r}: "
                f"{', '.join(new.renamed)} (v2 variable names)",
                node,
            )

    def doc_value(self, node: Node) -> Any:
        if isinstance(node, ScalarNode):
            from agentv_lsp.yamlpos.document import _scalar_value

            return _scalar_value(node)
        return None

    def prefix_file_scheme(self, node: Node) -> None:
        if not isinstance(node, ScalarNode) or node.style in ("|", ">"):
            self.line = node.start_mark.line + 1
            raise Unsupported("a prompt path written as a block scalar")
        at = self.index.start_of(node) + (1 if node.style in ("'", '"') else 0)
        self.edits.append(Edit(at, at, "file://"))

    def rewrite_prompt_file(self, path: str, name: str, owner: str, node: Node) -> None:
        change = self.companions.get(path)
        try:
            old = change.old_text if change else self.ef.fs.read_document(path)
        except FileReadError as exc:
            self.note(f"{owner}: evaluator '{name}': prompt file unreadable ({exc})", node, attention=True)
            return
        new = rewrite_variables(old)
        shown = os.path.relpath(path, self.ef.repo_root)
        if new.missing:
            self.note(
                f"{owner}: evaluator '{name}': {shown} uses {', '.join(new.missing)}, which 4.42.4 does not have",
                node,
                attention=True,
            )
        if not V4_REQUIRED_VARIABLE.search(new.text):
            self.note(
                f"{owner}: evaluator '{name}': 4.42.4 refuses {shown}: a grader template must use "
                "{{ output }} or {{ expected_output }}",
                node,
                attention=True,
            )
        if new.renamed and change is None:
            self.companions[path] = CompanionChange(
                path, old, new.text, f"grader prompt: {', '.join(new.renamed)} (v2 variable names)"
            )
        raw = node.value if isinstance(node, ScalarNode) else shown
        self.note(
            f"{owner}: evaluator '{name}': type llm_judge -> llm-grader, prompt file://{raw} ({shown})", node
        )


@dataclass(frozen=True, slots=True)
class Rewritten:
    text: str
    renamed: tuple[str, ...]
    missing: tuple[str, ...]


def rewrite_variables(template: str) -> Rewritten:
    """v2 `{{name}}` variables -> their 4.42.4 names (`{{output}}`, …)."""
    renamed: list[str] = []
    missing: list[str] = []

    def swap(m: re.Match[str]) -> str:
        old = m.group(1)
        new = V2_TO_V4_VARIABLES.get(old)
        if new is None:
            if old in V2_ONLY_VARIABLES and old not in missing:
                missing.append("{{" + old + "}}")
            return m.group(0)
        label = f"{{{{{old}}}}} -> {{{{{new}}}}}"
        if label not in renamed:
            renamed.append(label)
        return "{{" + new + "}}"

    return Rewritten(V2_VARIABLE.sub(swap, template), tuple(renamed), tuple(missing))


def _role_at(suite: dict[str, Any], case_index: int, message_index: Any) -> str:
    try:
        role = suite["evalcases"][case_index]["input_messages"][message_index]["role"]
    except (KeyError, IndexError, TypeError):
        return "same"
    return str(role)


def value_text(node: Node) -> str:
    return str(node.value) if isinstance(node, ScalarNode) else "…"
