"""What AgentV 4.42.4 does to an author's content without saying so.

Each rule here was confirmed with the published runtime (`tests/v4_loss_cases/<name>/`,
recorded by the golden driver): the runtime loses, duplicates or changes the content, prints
nothing, and `agentv validate` passes it. Codes are `v4-loss-...`; severity `warning` where
content is lost or changed, `information` where the behaviour is by design but easy to miss.

The checks read the parsed YAML (or JSONL) values, one pass over the tests; `check.py` folds
a finding into a diagnostic already at the same place (a validate or schema finding).
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from agentv_lsp.checks.model import Diagnostic, Severity
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.engine.jsrt import JS_WHITESPACE, node_resolve
from agentv_lsp.formats.v4.fastglob import glob_files
from agentv_lsp.formats.v4.grader_parser import normalize_type
from agentv_lsp.formats.v4.judge import (
    GRADER_VARIABLE,
    TEMPLATE_VARIABLES,
    contains_template_variables,
    prototype_member_text,
)
from agentv_lsp.formats.v4.keys import V4_KEYS, Keys
from agentv_lsp.formats.v4.model import YamlPath
from agentv_lsp.formats.v4.runtime import (
    MISSING,
    OBJECT_PROTOTYPE,
    PROTO_KEY,
    JsFunction,
    env_value,
    lookup_template_var,
    may_spell_proto,
    quick_contains,
    set_js_prototypes,
    stringify_template_value,
)
from agentv_lsp.yamlpos import Span

SpanOf = Callable[[YamlPath, bool], Span]  # (path, key?) -> range

ROLES = frozenset({"system", "user", "assistant", "tool"})
RENDERED_SEGMENTS = ("text", "file", "image")
INPUT_MESSAGE_KEYS = frozenset({"role", "content", "tool_calls"})
EXPECTED_MESSAGE_KEYS = frozenset({"role", "content", "tool_calls", "name"})


@dataclass(frozen=True, slots=True)
class _KeySets:
    """The groups of keys the finder looks for, as a key table names them."""

    # a test with none of these (nor `execution.evaluators`) has no assertion list of its own
    assertion_lists: frozenset[str]
    # the test keys `_Finder.test` checks besides `input` and `expected_output`
    settings: frozenset[str]
    # the fields `vars` are substituted in (`interpolateRawEvalCase`)
    vars_fields: tuple[str, ...]


@functools.cache
def _key_sets(k: Keys) -> _KeySets:
    lists = frozenset(k.grader_list_keys())
    return _KeySets(
        lists,
        lists | {k.execution, k.input_files, k.vars},
        (k.criteria, k.expected_outcome, k.input, k.input_files, k.expected_output),
    )


# the runtime's patterns, with JavaScript's `\s` (Python's also takes U+001C-U+001F and U+0085)
_JS_WS = "[" + re.escape(JS_WHITESPACE) + "]*"
_ENV_REF = re.compile(r"\$\{\{" + _JS_WS + r"([A-Za-z_][A-Za-z0-9_]*)" + _JS_WS + r"\}\}")
_TEMPLATE_REF = re.compile(r"\{\{" + _JS_WS + r"([A-Za-z_][A-Za-z0-9_.]*)" + _JS_WS + r"\}\}")
_WHOLE_TEMPLATE_REF = re.compile(_TEMPLATE_REF.pattern + r"\Z")
_WHOLE_ENV_REF = re.compile(_ENV_REF.pattern + r"\Z")
_CASES_EXTENSIONS = (".yaml", ".yml", ".jsonl")
# segment types whose problems (a file or text without `value`) `agentv validate` reports
_VALIDATED_SEGMENTS = ("text", "file")


def _given(mapping: Mapping[str, Any], key: str) -> bool:
    """JS `mapping[key] ?? …` takes this value (present and not null)."""
    return mapping.get(key) is not None


def _first_given(mapping: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    return next((k for k in keys if _given(mapping, k)), None)


def _is_message(value: Any) -> bool:
    """`isTestMessage`: a known role and string/list/object content, or tool calls."""
    if not isinstance(value, dict) or value.get("role") not in ROLES:
        return False
    content = value.get("content")
    if isinstance(content, (str, dict)):
        return True
    if isinstance(content, list) and all(isinstance(i, (str, dict)) for i in content):
        return True
    calls = value.get("tool_calls")
    return isinstance(calls, list) and bool(calls)


def _is_text_message(value: Any) -> bool:
    """A message of only a known role and string content (`_is_message`, the usual case)."""
    return (
        isinstance(value, dict)
        and len(value) == 2
        and value.get("role") in ROLES
        and isinstance(value.get("content"), str)
    )


def _messages(value: Any, base: YamlPath) -> list[tuple[YamlPath | None, dict[str, Any]]]:
    """The messages an `input` value expands to (`expandInputShorthand`), with the path of
    each written one (None: a shorthand's message, nothing to point at)."""
    if isinstance(value, str) or (isinstance(value, dict) and "role" not in value):
        return [(None, {"role": "user", "content": value})]
    if isinstance(value, dict):
        return [(base, value)] if _is_message(value) else []
    if isinstance(value, list):
        return [((*base, i), m) for i, m in enumerate(value) if _is_message(m)]
    return []


class _Finder:
    def __init__(
        self,
        path: str,
        span_of: SpanOf,
        env: Mapping[str, str],
        *,
        report_suite: bool = True,
        proto_keys: bool = True,
        templates: bool = True,
        keys: Keys = V4_KEYS,
    ) -> None:
        self.k = keys  # the eval file's key names
        self.sets = _key_sets(keys)
        self.path = path
        self.proto_keys = proto_keys  # False: the text spells no `__proto__` key
        self.templates = templates  # False: the text has no `{{`
        self.report_suite = report_suite  # False: the suite's messages live in another file
        self.span_of = span_of
        self.env = env
        self.found: list[Diagnostic] = []
        self.seen: set[tuple[str, YamlPath]] = set()
        self.suite_started: dict[int, bool] = {}
        self.defaults: dict[int, list[Any]] = {}

    def add(
        self,
        code: str,
        severity: Severity,
        where: YamlPath,
        message: str,
        *,
        key: bool = False,
        span: Span | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        ident = (code, where)
        if ident in self.seen:
            return  # e.g. the suite input, met once per test
        self.seen.add(ident)
        self.found.append(
            Diagnostic(
                self.path,
                span if span is not None else self.span_of(where, key),
                severity,
                f"v4-loss-{code}",
                message,
                where,
                {"loss": True, **(data or {})},
            )
        )

    # -- a test ------------------------------------------------------------------------------
    # Runs for every test: each check returns early in the usual case (no assertions of its
    # own, string content) and builds paths only for a finding.
    def test(self, test: dict[str, Any], where: YamlPath, suite: Mapping[str, Any] | None) -> None:
        suite = suite or {}
        k = self.k
        # Most tests have none of these keys: one pass over the test's keys stands for the
        # checks of its settings (a dictionary lookup each costs more).
        settings = not self.sets.settings.isdisjoint(test)
        skip_defaults = False
        if settings:
            execution = test.get(k.execution)
            skip_defaults = isinstance(execution, dict) and execution.get(k.skip_defaults) is True
            if not self.sets.assertion_lists.isdisjoint(test) or (
                isinstance(execution, dict) and k.evaluators in execution
            ):
                self.assertion_lists(test, where, suite, skip_defaults)
            if skip_defaults:
                self.defaults_skipped(test, where, suite, skip_defaults)
            if k.input_files in test:
                self.input_files_override(test, where, suite, skip_defaults)
        self.input(test, where, suite, skip_defaults)
        expected = test.get(k.expected_output)
        if isinstance(expected, (dict, list)):  # `expected` has nothing to say about other values
            self.expected(expected, (*where, k.expected_output))
        if settings and isinstance(test.get(k.vars), dict):
            self.variables(test, where)
        if settings and self.templates:
            for key in (k.assertions, k.deprecated_assertions):
                if isinstance(test.get(key), list):
                    self.grader_prompts(test[key], (*where, key))

    def assertion_lists(
        self, test: dict[str, Any], where: YamlPath, suite: Mapping[str, Any], skip_defaults: bool
    ) -> None:
        k = self.k
        raw_execution = test.get(k.execution)
        execution: dict[str, Any] = raw_execution if isinstance(raw_execution, dict) else {}
        # `parseGraders`: assertions ?? assert ?? execution.evaluators ?? evaluators
        if k.deprecated_assertions in test or k.evaluators in test or k.evaluators in execution:
            used = self.ignored_lists(
                [
                    ((*where, k.assertions), test.get(k.assertions)),
                    ((*where, k.deprecated_assertions), test.get(k.deprecated_assertions)),
                    ((*where, k.execution, k.evaluators), execution.get(k.evaluators)),
                    ((*where, k.evaluators), test.get(k.evaluators)),
                ]
            )
        else:
            own_list = test.get(k.assertions)
            if own_list is None:
                return  # nothing of its own to compare with the suite's defaults
            used = ((*where, k.assertions), own_list)
        if skip_defaults:
            defaults: list[Any] = []
        else:
            if id(suite) not in self.defaults:
                self.defaults[id(suite)] = _suite_assertions(suite, k)
            defaults = self.defaults[id(suite)]
        own = used[1] if used is not None and isinstance(used[1], list) else []
        if used is not None and own and defaults:
            self.add(
                "suite-assertions",
                "information",
                used[0],
                f"AgentV runs the suite's {len(defaults)} default assertion(s) on this test too, after "
                f"these (they are appended, not replaced). Add `{k.execution}: {{{k.skip_defaults}: true}}` "
                "to this test to run only its own.",
                key=True,
            )
        if used is not None:
            self.duplicate_assertions(own, used[0], defaults)

    def ignored_lists(self, candidates: list[tuple[YamlPath, Any]]) -> tuple[YamlPath, Any] | None:
        """The assertion list AgentV uses; warn on later ones it ignores."""
        used: tuple[YamlPath, Any] | None = None
        for place, value in candidates:
            if value is None:
                continue
            if used is None:
                used = (place, value)
                continue
            count = f"its {len(value)} assertion(s)" if isinstance(value, list) else "it"
            self.add(
                "ignored-assertions",
                "warning",
                place,
                f"AgentV ignores '{place[-1]}' here because '{used[0][-1]}' is given: {count} never run. "
                f"Move them into '{used[0][-1]}'.",
                key=True,
            )
        return used

    def duplicate_assertions(self, own: list[Any], base: YamlPath, defaults: list[Any]) -> None:
        if len(own) < 2 and not defaults:
            return
        for index, item in enumerate(own):
            if not isinstance(item, dict):
                continue
            earlier = next((j for j in range(index) if _same(own[j], item)), None)
            if earlier is not None:
                why = f"is the same as item {earlier + 1} of this list"
            elif any(_same(d, item) for d in defaults):
                why = "is also one of the suite's default assertions (appended to this test)"
            else:
                continue
            self.add(
                "duplicate-assertion",
                "warning",
                (*base, index),
                f"This assertion {why}: AgentV runs it twice and counts both results in the score. "
                "Remove one of them.",
            )

    def defaults_skipped(
        self, test: dict[str, Any], where: YamlPath, suite: Mapping[str, Any], skip_defaults: bool
    ) -> None:
        if not skip_defaults:
            return
        k = self.k
        dropped = [key for key in (k.input, k.input_files) if _given(suite, key)]
        if _suite_assertions(suite, k):
            dropped.append(k.assertions)
        if not dropped:
            return
        quoted = [f"`{key}`" for key in dropped]
        names = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"
        self.add(
            "skip-defaults",
            "information",
            (*where, k.execution, k.skip_defaults),
            f"`{k.skip_defaults}: true` makes AgentV leave out the suite's {names} for this test (not only "
            "its assertions). Repeat here what this test still needs.",
        )

    def input_files_override(
        self, test: dict[str, Any], where: YamlPath, suite: Mapping[str, Any], skip_defaults: bool
    ) -> None:
        k = self.k
        if skip_defaults or not _given(suite, k.input_files) or not _given(test, k.input_files):
            return
        if not isinstance(test.get(k.input), str):
            return  # the runtime skips the test, and says so
        self.add(
            "input-files-override",
            "warning",
            (*where, k.input_files),
            f"This test's `{k.input_files}` replace the suite's `{k.input_files}` (AgentV does not merge "
            "them): the suite's files are not given to this test. List them here too if it needs them.",
            key=True,
        )

    # -- input messages ----------------------------------------------------------------------
    def input(
        self, test: dict[str, Any], where: YamlPath, suite: Mapping[str, Any], skip_defaults: bool
    ) -> None:
        k = self.k
        started = False if skip_defaults else self.suite_input(suite)
        if _given(test, k.input_files) or (not skip_defaults and _given(suite, k.input_files)):
            return  # a string input becomes one user message of file and text blocks
        value = test.get(k.input)
        if isinstance(value, list):
            self.input_list(value, (*where, k.input), started)
        elif isinstance(value, dict):
            self.messages(_messages(value, (*where, k.input)), started)
        # else a string: one user message, nothing to lose

    def input_list(self, value: list[Any], base: YamlPath, started: bool) -> None:
        """`messages(_messages(value, base), started)` for a written list of messages, with
        the usual message (only a role and string content) passed over without a call."""
        for index, message in enumerate(value):
            if not isinstance(message, dict):
                continue
            role = message.get("role")
            if role not in ROLES:  # `_is_message`'s first test (an unhashable role raises there too)
                continue
            content = message.get("content")
            if isinstance(content, str) and len(message) == 2:  # a role and text, nothing else
                if role != "system":
                    started = True
                elif started:
                    self.input_message(message, (*base, index), started)
                continue
            if not _is_message(message):
                continue
            self.input_message(message, (*base, index), started)
            if role != "system" and isinstance(content, (str, list, dict)):
                started = True

    def suite_input(self, suite: Mapping[str, Any]) -> bool:
        """Report the suite's input messages (once) and say whether they start the conversation."""
        key = id(suite)
        started = self.suite_started.get(key)
        if started is None:
            k = self.k
            written = _messages(suite.get(k.input), (k.input,)) if _given(suite, k.input) else []
            if not self.report_suite:
                written = [(None, m) for _p, m in written]
            started = self.suite_started[key] = self.messages(written, False)
        return started

    def messages(self, written: list[tuple[YamlPath | None, dict[str, Any]]], started: bool) -> bool:
        """Each message in order; True once a non-system message has been seen."""
        for place, message in written:
            if place is not None:
                self.input_message(message, place, started)
            if message.get("role") != "system" and isinstance(message.get("content"), (str, list, dict)):
                started = True
        return started

    def input_message(self, message: dict[str, Any], place: YamlPath, conversation_started: bool) -> None:
        if not INPUT_MESSAGE_KEYS.issuperset(message):
            for key in message:
                if key not in INPUT_MESSAGE_KEYS:
                    self.unknown_message_key(key, place, "sent to the target (only `role` and `content` are)")
        if _given(message, "tool_calls"):
            has_content = isinstance(message.get("content"), (str, list, dict))
            self.add(
                "input-tool-calls",
                "warning",
                (*place, "tool_calls"),
                "AgentV never sends an input message's `tool_calls` to the target"
                + (
                    "; this message has nothing else, so it is dropped from the conversation."
                    if not has_content
                    else " (only its `content`)."
                )
                + " Describe the call and its result in `content` (e.g. a `tool` message).",
                key=True,
            )
        if message.get("role") == "system" and conversation_started:
            self.add(
                "late-system",
                "warning",
                (*place, "role"),
                "Only the system messages at the start of the input become the system prompt: AgentV sends "
                "this one to the target as an assistant turn starting with '@[System]:'. Move it before the "
                "first user message.",
            )
        content = message.get("content")
        if isinstance(content, list):
            for index, segment in enumerate(content):
                # text and file segments (most of them) have nothing to check: no call for them
                if isinstance(segment, dict) and segment.get("type") not in _VALIDATED_SEGMENTS:
                    self.input_segment(segment, place, index)

    def unknown_message_key(self, key: str, place: YamlPath, what: str) -> None:
        hint = difflib.get_close_matches(key, ["content", "role", "tool_calls", "name"], n=1)
        fix = f" Did you mean '{hint[0]}'?" if hint else " Remove it or move its text into `content`."
        self.add(
            "message-key",
            "warning",
            (*place, key),
            f"AgentV ignores the message key '{key}': its value is never {what}, and `agentv validate` "
            f"does not mention it.{fix}",
            key=True,
            data={"key": key},
        )

    def input_segment(self, segment: dict[str, Any], message: YamlPath, index: int) -> None:
        """Segment `index` of the content of the input message at `message`."""
        kind = segment.get("type")
        if kind in _VALIDATED_SEGMENTS or not isinstance(kind, str):  # `agentv validate` speaks of these
            return
        place: YamlPath = (*message, "content", index)
        if kind == "image":
            self.segment_value(segment, place)
            if _nonempty(segment.get("value")):
                self.add(
                    "input-image",
                    "warning",
                    place,
                    "AgentV 4.42.4 loads this image but never sends it to the target: prompts are built "
                    "from text and file segments only, in both LM and agent mode (only code graders see it, "
                    "in the test's input). Describe what the target needs in text.",
                )
        elif kind not in RENDERED_SEGMENTS:
            hint = difflib.get_close_matches(kind, RENDERED_SEGMENTS, n=1, cutoff=0.5)
            fix = f"Use `type: {hint[0]}`." if hint else "Use `type: text` (with `value`) or `type: file`."
            self.add(
                "segment-type",
                "warning",
                (*place, "type"),
                f"AgentV keeps a '{kind}' segment in the test's input but leaves it out of the prompt (it "
                f"renders only text, file and image segments), so the target never sees it. {fix}",
                data={"type": kind, **({"suggestion": hint[0]} if hint else {})},
            )

    def segment_value(self, segment: dict[str, Any], place: YamlPath) -> None:
        if _nonempty(segment.get("value")):
            return
        kind = segment.get("type")
        other = next((k for k in ("path", "file", "src", "url", "text") if _nonempty(segment.get(k))), None)
        found = f" (it has '{other}')" if other else ""
        self.add(
            "segment-value",
            "warning",
            (*place, "value"),
            f"AgentV drops this {kind} segment without a message (and `agentv validate` passes it): it "
            f"reads the image path only from `value`{found}. Write `value: <path>`.",
            span=self.span_of(place, False),
        )

    # -- expected_output ---------------------------------------------------------------------
    def expected(self, value: Any, place: YamlPath) -> None:
        if isinstance(value, list) and len(value) == 1 and _is_text_message(value[0]):
            return  # the usual answer: one message of text, nothing to lose
        if isinstance(value, dict) and "role" in value:
            messages = [(place, value)] if _is_message(value) else []
        elif isinstance(value, list) and value and isinstance(value[0], dict) and "role" in value[0]:
            messages = [((*place, i), m) for i, m in enumerate(value) if _is_message(m)]
        else:
            return  # a string, or structured content: the reference answer as written / as JSON
        for where, message in messages:
            if not EXPECTED_MESSAGE_KEYS.issuperset(message):
                for key in message:
                    if key not in EXPECTED_MESSAGE_KEYS:
                        self.unknown_message_key(key, where, "given to graders")
            content = message.get("content")
            if isinstance(content, list):
                for index, segment in enumerate(content):
                    if isinstance(segment, dict) and segment.get("type") == "image":
                        self.segment_value(segment, (*where, "content", index))
        if not messages:
            return
        earlier = [(w, m) for w, m in messages[:-1] if m.get("content") is not None]
        if earlier:
            # from the first earlier message to the last value of the last one
            first = self.span_of(earlier[0][0], False)
            tail_where, tail = earlier[-1]
            last = self.span_of((*tail_where, list(tail)[-1]), False)
            self.add(
                "expected-earlier",
                "warning",
                earlier[0][0],
                f"Only the last message of `expected_output` becomes the reference answer the LLM grader "
                f"sees; AgentV leaves out the {len(earlier)} message(s) before it (only code graders and "
                "custom prompt scripts get the whole list). Put the expected answer in one message.",
                span=Span(first.start_line, first.start_col, last.end_line, last.end_col),
                data={"messages": len(earlier)},
            )
        where, message = messages[-1]
        content = message.get("content")
        if isinstance(content, list) and content:
            has_file = any(isinstance(s, dict) and s.get("type") == "file" for s in content)
            detail = (
                ": each file segment becomes an object holding the file's text and its absolute path on "
                "this machine ('resolvedPath')"
                if has_file
                else ""
            )
            self.add(
                "expected-json",
                "warning",
                (*where, "content"),
                "AgentV gives the LLM grader this content list as JSON text (the segments' objects, "
                f"pretty-printed), not as the answer's text{detail}. Write the expected answer as a string "
                "`content`.",
                key=True,
            )

    # -- vars ----------------------------------------------------------------------------------
    def variables(self, test: dict[str, Any], where: YamlPath) -> None:
        variables: dict[str, Any] = test[self.k.vars]
        # the runtime looks names up on the object its copy made (`__proto__` keys applied)
        runtime_vars = variables
        if self.proto_keys and _holds_proto_key(variables):
            # a self-containing value (YAML aliases) is kept: the runtime fails to load it anyway
            with contextlib.suppress(RecursionError):
                runtime_vars = set_js_prototypes(variables)
        k = self.k
        fields = [(field, (*where, field), test[field]) for field in self.sets.vars_fields if field in test]
        turns = test.get(k.turns)
        if isinstance(turns, list):  # `interpolateCaseTurns`: each turn's input and expected_output
            fields += [
                (key, (*where, k.turns, i, key), turn[key])
                for i, turn in enumerate(turns)
                if isinstance(turn, dict)
                for key in (k.input, k.expected_output)
                if key in turn
            ]
        for field, field_at, value in fields:
            for place, text in _strings(value, field_at):
                # `${{ VAR }}` is replaced (environment) before `vars` are
                text = _ENV_REF.sub("", text)
                for name in _TEMPLATE_REF.findall(text):
                    found = lookup_template_var(runtime_vars, name)
                    if found is not MISSING and _lookup(variables, name) is _MISSING:
                        self.inherited_name(name, found, place, field, bool(_WHOLE_TEMPLATE_REF.match(text)))
                        break
                    if found is MISSING:
                        self.add(
                            "unresolved-var",
                            "warning",
                            place,
                            f"'{name}' is not in this test's `vars`: AgentV leaves `{{{{{name}}}}}` as "
                            f"written in the prompt, without a message. Add '{name}' to `vars` or fix "
                            "the name.",
                            data={"name": name},
                        )
                        break
        for field in (k.assertions, k.deprecated_assertions):
            if field not in test:
                continue
            for place, text in _strings(test[field], (*where, field)):
                names = [
                    n
                    for n in _TEMPLATE_REF.findall(_ENV_REF.sub("", text))
                    if _lookup(variables, n) is not _MISSING
                ]
                if names:
                    self.add(
                        "vars-in-assertions",
                        "warning",
                        place,
                        f"AgentV substitutes `{k.vars}` only in {k.criteria}, {k.input}, {k.input_files} and "
                        f"{k.expected_output}: here `{{{{{names[0]}}}}}` stays literally as written. "
                        "Write the value itself.",
                        data={"name": names[0]},
                    )

    def inherited_name(self, name: str, found: Any, place: YamlPath, field: str, whole: bool) -> None:
        """`{{ name }}` that `vars` does not define but every JavaScript object has (Object.prototype:
        `toString`, `constructor`, `__proto__` …), or that a `__proto__` key put in its prototype."""
        shown = f"`{{{{ {name} }}}}`"
        target = f"`{field}`" if place[-1] == field else "this value"
        if isinstance(found, JsFunction):
            what = (
                f"names `{name.split('.')[-1]}`, a function every JavaScript object has, not a key of `vars`"
            )
            if whole:
                effect = (
                    f"AgentV replaces {target} with that function, which is not JSON, so the runtime treats it "
                    "as missing and drops what holds it (a test left without `input`, or without `criteria` "
                    "and `expected_output`, is skipped)"
                )
            else:
                effect = "AgentV writes `undefined` in its place"
            fix = f"Add '{name.split('.')[-1]}' to `vars` or rename the placeholder."
        else:
            rendered = "{}" if found is OBJECT_PROTOTYPE else stringify_template_value(found)
            if name.split(".")[-1] == PROTO_KEY:
                what = "names the JavaScript prototype of the object, not a key of `vars`"
            else:
                what = "is not a key of `vars` but of its JavaScript prototype (a `__proto__` key)"
            effect = (
                f"AgentV replaces {target} with `{_short(rendered)}`"
                if whole
                else f"AgentV writes `{_short(rendered)}` in its place"
            )
            fix = (
                "Rename the placeholder (`__proto__` cannot be a variable)."
                if found is OBJECT_PROTOTYPE
                else "Rename the placeholder, or the variable and its `__proto__` key."
            )
        self.add(
            "prototype-name",
            "warning",
            place,
            f"{shown} {what}: {effect}. {fix}",
            data={"name": name, "whole": whole},
        )

    def grader_prompts(self, graders: list[Any], base: YamlPath) -> None:
        """An inline llm-grader template (a `prompt` with a grader variable) fills `{{ name }}`
        from a plain JavaScript object (`variables[name] ?? match`): a name every object has
        prints that member instead of staying as written."""
        for index, grader in enumerate(graders):
            # most graders have no string prompt with `{{`: asked first, it is the cheap question
            prompt = grader.get("prompt") if isinstance(grader, dict) else None
            if not isinstance(prompt, str) or "{{" not in prompt or not isinstance(grader.get("type"), str):
                continue
            if normalize_type(grader["type"]) != "llm-grader" or not contains_template_variables(prompt):
                continue
            for name in GRADER_VARIABLE.findall(prompt):
                printed = prototype_member_text(name)
                if printed is None or name in TEMPLATE_VARIABLES:
                    continue
                self.add(
                    "prototype-name",
                    "warning",
                    (*base, index, "prompt"),
                    f"`{{{{ {name} }}}}` is not a grader variable but a member every JavaScript object has: "
                    f"AgentV puts `{printed}` in the grader prompt. Use one of the grader variables "
                    "({{ output }}, {{ input }}, {{ criteria }} …) or write the text without braces.",
                    data={"name": name, "grader": True},
                )
                break

    def prototype_keys(self, value: Any, where: YamlPath) -> None:
        """`__proto__` keys: `interpolateEnv` copies each object with `result[key] = value`, so
        this key sets the copy's prototype (an object, an array, null) or nothing, and vanishes."""
        stack: list[tuple[YamlPath, Any]] = [(where, value)]
        visited: set[int] = set()
        while stack:
            place, item = stack.pop()
            if not isinstance(item, dict | list) or id(item) in visited:
                continue
            visited.add(id(item))
            if isinstance(item, list):
                stack.extend(((*place, i), v) for i, v in enumerate(item))
                continue
            for key, value in item.items():
                if key == PROTO_KEY:
                    self.prototype_key(value, (*place, key), in_vars=bool(place) and place[-1] == self.k.vars)
                stack.append(((*place, key), value))

    def prototype_key(self, value: Any, place: YamlPath, *, in_vars: bool) -> None:
        if value is None:
            effect = "leaves this mapping with no prototype"
            if in_vars:
                effect += (
                    ": `{{ __proto__ }}`, `{{ toString }}` and the other names every object has then stay as "
                    "written"
                )
        elif isinstance(value, dict | list):
            effect = "makes its value this mapping's prototype"
            effect += (
                ": its keys become variables ('{{ key }}') and `{{ __proto__ }}` prints it as JSON"
                if in_vars
                else ": the runtime reads the fields this mapping lacks from it, but copies and JSON leave them out"
            )
        else:
            effect = "ignores its value"
            if in_vars:
                effect += ": `{{ __proto__ }}` prints `{}` (the prototype every object has)"
        self.add(
            "proto-key",
            "warning",
            place,
            f"`__proto__` is JavaScript's prototype accessor: AgentV drops this key and {effect}. "
            "Rename the key.",
            key=True,
        )

    # -- environment variables -------------------------------------------------------------------
    def env_member(self, name: str, place: YamlPath, *, whole: bool) -> None:
        """`${{ toString }}` etc.: `process.env[name]` finds a member every object has."""
        found = env_value(self.env, name)
        if isinstance(found, JsFunction):
            effect = (
                "AgentV replaces the whole value with that function, which is not JSON, so the file fails "
                "to load ('Invalid test file format') and `agentv validate` reports this field"
                if whole
                else f"AgentV writes `{found.source}` in its place"
            )
            what = f"is not set, and `process.env` has a function `{name}` (every JavaScript object does)"
        else:
            effect = (
                "AgentV replaces the whole value with an empty object"
                if whole
                else ("AgentV writes `[object Object]` in its place")
            )
            what = "is not set, and `process.env.__proto__` is its prototype object"
        self.add(
            "prototype-name",
            "warning",
            place,
            f"Environment variable {name} {what}: {effect}. Rename the variable.",
            data={"name": name, "whole": whole, "env": True},
        )

    def environment(self, value: Any, base: YamlPath) -> None:
        for place, text in _strings(value, base):
            if "${{" not in text:
                continue
            unset = [n for n in _ENV_REF.findall(text) if n not in self.env]
            members = [n for n in unset if env_value(self.env, n) != ""]
            if members:
                self.env_member(members[0], place, whole=bool(_WHOLE_ENV_REF.match(text)))
            missing = [n for n in unset if n not in members]
            if missing and not members:
                self.add(
                    "env-unset",
                    "warning",
                    place,
                    f"Environment variable {missing[0]} is not set here: AgentV replaces `${{{{ {missing[0]} }}}}` "
                    "with an empty string without a message. Set it before running, or write the text.",
                    data={"name": missing[0]},
                )


def _same(a: Any, b: Any) -> bool:
    """Equal parsed values (False for self-containing ones, which cannot be compared)."""
    try:
        return bool(a == b)
    except RecursionError:
        return False


def _holds_proto_key(value: Any) -> bool:
    """Whether a `__proto__` key sits anywhere under `value` (iterative; aliases visited once)."""
    stack = [value]
    visited: set[int] = set()
    while stack:
        item = stack.pop()
        if not isinstance(item, dict | list) or id(item) in visited:
            continue
        visited.add(id(item))
        if isinstance(item, dict):
            if PROTO_KEY in item:
                return True
            stack.extend(item.values())
        else:
            stack.extend(item)
    return False


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _nonempty(value: Any) -> bool:
    return isinstance(value, str) and value != ""


_MISSING = object()


def _lookup(variables: Mapping[str, Any], expression: str) -> Any:
    """`lookupTemplateVar`: a dotted path into `vars` (`_MISSING` when absent; null is a value)."""
    current: Any = variables
    for part in expression.split("."):
        if not isinstance(current, dict) or part not in current:
            return _MISSING
        current = current[part]
    return current


def _strings(value: Any, base: YamlPath) -> Iterator[tuple[YamlPath, str]]:
    """Every string value under `value` (not keys), with its path; iterative (deep YAML).
    A collection shared through YAML aliases is visited once (aliases can nest exponentially)."""
    stack: list[tuple[YamlPath, Any]] = [(base, value)]
    visited: set[int] = set()
    while stack:
        place, item = stack.pop()
        if isinstance(item, str):
            yield place, item
            continue
        if not isinstance(item, (dict, list)) or id(item) in visited:
            continue
        visited.add(id(item))
        if isinstance(item, dict):
            stack.extend(((*place, k), v) for k, v in reversed(list(item.items())) if isinstance(k, str))
        elif isinstance(item, list):
            stack.extend(((*place, i), v) for i, v in reversed(list(enumerate(item))))


def _suite_assertions(suite: Mapping[str, Any], k: Keys) -> list[Any]:
    """The suite's default assertions (`suite.assertions ?? suite.assert`, else execution's)."""
    for key in (k.assertions, k.deprecated_assertions):
        if _given(suite, key):
            value = suite[key]
            return value if isinstance(value, list) else []
    execution = suite.get(k.execution)
    if isinstance(execution, dict):
        used = _first_given(execution, k.grader_list_keys())
        if used is not None and isinstance(execution[used], list):
            return list(execution[used])
    return []


# -- entry points ------------------------------------------------------------------------------


def eval_file_losses(
    path: str,
    suite: Any,
    span_of: SpanOf,
    fs: FileSystem,
    env: Mapping[str, str] | None = None,
    text: str | None = None,
    keys: Keys = V4_KEYS,
) -> list[Diagnostic]:
    """Silent losses of an eval file (`suite`: its parsed value, `text`: its text when known,
    to skip looking for `${{ VAR }}` where there is none) and its inline tests."""
    protos = text is None or may_spell_proto(text)
    templates = text is None or quick_contains(text, "{{")
    finder = _Finder(
        path, span_of, os.environ if env is None else env, proto_keys=protos, templates=templates, keys=keys
    )
    if not isinstance(suite, dict):
        return []
    tests_key = next((k for k in keys.test_list_keys() if k in suite), None)
    tests = suite.get(tests_key) if tests_key else None
    assertions, deprecated = keys.assertions, keys.deprecated_assertions
    finder.ignored_lists([((assertions,), suite.get(assertions)), ((deprecated,), suite.get(deprecated))])
    used = assertions if _given(suite, assertions) else deprecated
    defaults = suite.get(used)
    if isinstance(defaults, list):
        finder.duplicate_assertions(defaults, (used,), [])
        if templates:
            finder.grader_prompts(defaults, (used,))
    if isinstance(tests, list):
        key = str(tests_key)
        for index, test in enumerate(tests):
            if isinstance(test, dict):
                finder.test(test, (key, index), suite)
        _files_loaded_twice(finder, tests, key, fs)
    elif isinstance(tests, str) and tests_key:
        _tests_folder_files(finder, node_resolve(os.path.dirname(path), tests), (tests_key,), fs)
    if text is None or quick_contains(text, "${{"):
        finder.environment(suite, ())
    if protos:
        finder.prototype_keys(suite, ())
    return finder.found


def cases_file_losses(
    path: str,
    tests: list[tuple[YamlPath, Any]],
    span_of: SpanOf,
    suite: Any = None,
    env: Mapping[str, str] | None = None,
    text: str | None = None,
    keys: Keys = V4_KEYS,
) -> list[Diagnostic]:
    """Silent losses in a file of tests (a YAML list, JSONL lines, a `case.yaml`), judged with
    the suite that loads it (`suite`: the eval file's parsed value, None when unknown)."""
    protos = text is None or may_spell_proto(text)
    templates = text is None or quick_contains(text, "{{")
    finder = _Finder(
        path,
        span_of,
        os.environ if env is None else env,
        report_suite=False,
        proto_keys=protos,
        templates=templates,
        keys=keys,
    )
    context = suite if isinstance(suite, dict) else None
    placeholders = text is None or quick_contains(text, "${{")  # once, not once per test
    for where, test in tests:
        if isinstance(test, dict):
            finder.test(test, where, context)
        if placeholders:
            finder.environment(test, where)
        if protos:
            finder.prototype_keys(test, where)
    return finder.found


def _files_loaded_twice(finder: _Finder, tests: list[Any], key: str, fs: FileSystem) -> None:
    """Two `file://` entries naming the same file: AgentV loads its tests twice."""
    base = os.path.dirname(finder.path)
    first: dict[str, int] = {}
    # most entries are inline tests: the `file://` ones are picked out in one comprehension
    references = [
        (i, entry) for i, entry in enumerate(tests) if isinstance(entry, str) and entry.startswith("file://")
    ]
    for index, entry in references:
        raw = entry[len("file://") :]
        target = node_resolve(base, raw)
        if any(c in raw for c in "*?{"):
            try:
                files = sorted(glob_files(fs, target.replace("\\", "/")).files)
            except (OSError, ValueError):
                files = []
        else:
            files = [target]
        again = [f for f in files if f in first]
        for file in files:
            first.setdefault(file, index)
        if again:
            names = ", ".join(os.path.relpath(f, base) for f in again[:3]) + (" …" if len(again) > 3 else "")
            finder.add(
                "tests-loaded-twice",
                "warning",
                (key, index),
                f"{names} is already loaded by entry {first[again[0]] + 1} of `{key}`: AgentV loads its tests "
                "again, so they run (and are reported) twice. Remove the overlap.",
                data={"files": again},
            )


def _tests_folder_files(finder: _Finder, folder: str, where: YamlPath, fs: FileSystem) -> None:
    """`tests: <folder>` reads only `<folder>/<name>/case.yaml`: test files beside them are ignored."""
    if not fs.is_allowed(folder) or not fs.is_dir(folder):
        return
    try:
        loose = sorted(
            e.name for e in fs.scandir(folder) if e.is_file() and e.name.lower().endswith(_CASES_EXTENSIONS)
        )
    except OSError:
        return
    if loose:
        names = ", ".join(loose[:3]) + (" …" if len(loose) > 3 else "")
        finder.add(
            "tests-folder-file",
            "warning",
            where,
            f"AgentV reads a tests folder only as `<name>/case.yaml` subfolders and ignores the file(s) "
            f"directly inside it without a message: {names}. Move each test into its own `<name>/case.yaml`, "
            f"or name the file in `{finder.k.tests}`.",
            data={"files": loose},
        )


__all__ = ["cases_file_losses", "eval_file_losses"]
