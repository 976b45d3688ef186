"""The grader (judge) request AgentV 4.42.4 sends for a test: `{"question", "systemPrompt"}`.

What the orchestrator does after the candidate answered (`runEvalCase` → `runEvaluatorsForCase`):
- no `assertions`: the default `llm-grader` grades with DEFAULT_GRADER_TEMPLATE (freeform);
- otherwise the graders run in order and the first `llm-grader` among them sends the first request.
  Deterministic graders and `code-grader` send none. A grader whose prompt is a script
  (`prompt: {command: …}`) sends a prompt only the script knows, so there is nothing to show
  (None). Graders inside a `composite` are not previewed (it is skipped here).
- for an `llm-grader`, the prompt file (`file://…`, read with CRLF → LF) or the inline string
  replaces the whole template, except an inline string without a known `{{ variable }}`: that
  text becomes the criteria of the default template instead;
- with `rubrics`, the checklist prompt (or the score-range prompt when a rubric has
  `score_ranges`) is built instead of the template, unless a custom template overrides it; the
  system prompt is the matching output schema;
- in conversation mode (`mode: conversation` + `turns`) every turn adds the user input and the
  candidate's reply to a transcript; the first turn with graders (its string assertions become one
  rubric grader, objects pass through unparsed) or an `expected_output` is graded on the transcript,
  and the test's own graders grade the whole transcript after the last turn.

Template variables are filled from the test (`criteria`, `reference_answer`, `metadata`) and from
the candidate's formatted question for the same mode; the candidate answer is a placeholder.
The grader configs are the runtime's parsed ones (`EvalTest.assertions`: `type`, `name`,
`prompt`, `promptPath`, `resolvedPromptScript`, `rubrics` … with the runtime's key order, which
`{{ rubrics }}` prints).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentv_lsp.engine.files import FileReadError, FileSystem
from agentv_lsp.engine.jsrt import JS_WHITESPACE, crlf_to_lf, is_blank, js_trim
from agentv_lsp.formats.v4.keys import V4_KEYS, Keys
from agentv_lsp.formats.v4.model import PromptInputs, RuntimeMessage, V4Test
from agentv_lsp.formats.v4.runtime import MISSING, OBJECT_PROTOTYPE_MEMBERS, js_string
from agentv_lsp.yamlpos.scalars import js_json_stringify

# What a preview shows in place of the candidate's answer (there is none yet); v2 used the same.
CANDIDATE_PLACEHOLDER = "CANDIDATE_ANSWER"

DEFAULT_GRADER_TEMPLATE = """You are an expert grader. Your goal is to grade the answer based on how well it achieves the criteria for the original task.

Use the reference_answer as a gold standard for a high-quality response (if provided). The reference_answer may be a simple text response, or it may contain a sequence of expected agent messages including tool calls. When it contains multiple messages, the last message represents the final expected answer. The answer does not need to match it verbatim, but should capture the key points and follow the same spirit.

Be concise and focused in your evaluation. Provide succinct, specific feedback rather than verbose explanations.

[[ ## criteria ## ]]
{{criteria}}

[[ ## question ## ]]
{{input}}

[[ ## reference_answer ## ]]
{{expected_output}}

[[ ## answer ## ]]
{{output}}"""

FREEFORM_SYSTEM_PROMPT = "\n".join(
    [
        "You must respond with a single JSON object matching this schema:",
        "",
        "{",
        '  "score": <number between 0.0 and 1.0>,',
        '  "assertions": [',
        "    {",
        '      "text": "<brief description of what was checked>",',
        '      "passed": <boolean>,',
        '      "evidence": "<concise evidence, 1-2 sentences, optional>"',
        "    }",
        "  ],",
        '  "details": {<optional object with domain-specific structured metrics>}',
        "}",
    ]
)

CHECKLIST_SYSTEM_PROMPT = """You are an expert grader. Evaluate the candidate answer against each rubric item.
You must return a valid JSON object matching this schema:
{
  "checks": [
    {
      "id": "string (rubric id)",
      "satisfied": boolean,
      "reasoning": "string (brief explanation)"
    }
  ],
  "overall_reasoning": "string (summary)"
}"""

SCORE_RANGE_SYSTEM_PROMPT = """You are an expert grader. Score the candidate answer on each criterion.
You must return a valid JSON object matching this schema:
{
  "checks": [
    {
      "id": "string (criterion id)",
      "score": integer (0-10),
      "reasoning": "string (brief explanation for score)"
    }
  ],
  "overall_reasoning": "string (summary, optional)"
}

Important: The "score" must be an integer from 0 to 10 that falls within one of the defined score ranges for that criterion."""

OPERATOR_GUIDANCE = {
    "correctness": "Correctness: mark satisfied only when the answer positively supports or fulfills the outcome. Omission or contradiction should not satisfy it.",
    "contradiction": "Contradiction guard: mark satisfied when the answer does not make a claim that contradicts the outcome. Do not require the answer to mention the outcome; mark unsatisfied only for incompatible claims.",
}

# The variables a grader template may use, in the runtime's order (the grader parser lists
# them in its "Valid variables" warning)
TEMPLATE_VARIABLES = (
    "expected_output",
    "criteria",
    "metadata",
    "metadata_json",
    "rubrics",
    "rubrics_json",
    "input",
    "output",
    "file_changes",
    "tool_calls",
)

# `{{ name }}` with JavaScript's `\s` (not Python's, which also takes U+001C-U+001F and U+0085)
_WS = "[" + re.escape(JS_WHITESPACE) + "]*"
GRADER_VARIABLE = re.compile(r"\{\{" + _WS + r"([a-zA-Z0-9_]+)" + _WS + r"\}\}")
_VARIABLE = GRADER_VARIABLE


def prototype_member_text(name: str) -> str | None:
    """What a template literal prints for `variables[name]` when `name` is a member every plain
    JavaScript object has (a method's source, `[object Object]` for `__proto__`), else None."""
    if name == "__proto__":
        return "[object Object]"
    member = OBJECT_PROTOTYPE_MEMBERS.get(name)
    return None if member is None else member.source


GraderConfig = Mapping[str, Any]


def substitute_variables(template: str, variables: Mapping[str, str]) -> str:
    """`substituteVariables`: every `{{ name }}` that names a variable, others left as written."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in variables:
            return variables[name]
        # `variables[name] ?? match` on a plain object: the names every object has print
        printed = prototype_member_text(name)
        return match.group(0) if printed is None else printed

    return _VARIABLE.sub(replace, template)


def contains_template_variables(text: str) -> bool:
    """`containsTemplateVariables`: whether an inline prompt is a whole template."""
    return any(m.group(1) in TEMPLATE_VARIABLES for m in _VARIABLE.finditer(text))


def _json_or_empty(value: Any, indent: int | None) -> str:
    """`stringifyPretty`/`stringifyCompact` of metadata: None stands for a test without any."""
    return "" if value is MISSING or value is None else js_json_stringify(value, indent)


def _is_truthy(value: Any) -> bool:
    if value is MISSING or value is None or value is False:
        return False
    if isinstance(value, int | float):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


class _Grading:
    """What one grader sees (`EvaluationContext`): the test's texts and the candidate."""

    def __init__(
        self,
        formatted_question: str,
        test_question: str,
        criteria: str,
        reference_answer: str,
        metadata: Any,
        candidate: str,
    ) -> None:
        # `promptInputs.question` unless it is blank, then the test's own question
        self.question = formatted_question if not is_blank(formatted_question) else test_question
        self.criteria = criteria
        self.reference_answer = reference_answer
        self.metadata = metadata
        self.candidate = candidate

    def variables(self, rubrics: Any) -> dict[str, str]:
        return {
            "input": js_trim(self.question),
            "output": js_trim(self.candidate),
            "expected_output": js_trim(self.reference_answer),
            "criteria": js_trim(self.criteria),
            "metadata": _json_or_empty(self.metadata, 2),
            "metadata_json": _json_or_empty(self.metadata, None),
            "rubrics": "" if rubrics is MISSING else js_json_stringify(rubrics, 2),
            "rubrics_json": "" if rubrics is MISSING else js_json_stringify(rubrics),
            "file_changes": "",
            "tool_calls": "",
        }

    def head(self, opening: list[str]) -> list[str]:
        """The question/criteria/reference/answer block the rubric prompts share."""
        parts = [
            *opening,
            "",
            "[[ ## question ## ]]",
            self.question,
            "",
            "[[ ## criteria ## ]]",
            self.criteria,
            "",
        ]
        if not is_blank(self.reference_answer):
            parts += ["[[ ## reference_answer ## ]]", self.reference_answer, ""]
        parts += ["[[ ## answer ## ]]", self.candidate, ""]
        return parts


def _operator_guidance(rubrics: Sequence[Mapping[str, Any]]) -> list[str]:
    seen: list[Any] = []  # in first-seen order, like a JavaScript Set
    for rubric in rubrics:
        operator = rubric.get("operator")
        if _is_truthy(operator) and operator not in seen:
            seen.append(operator)
    return [_guidance_of(op) for op in seen]


def _guidance_of(operator: Any) -> Any:
    """`OPERATOR_GUIDANCE[operator]` on the runtime's plain object: the text, a member every
    object has (`toString`: a function; `__proto__`: Object.prototype), else undefined."""
    key = operator if isinstance(operator, str) else js_string(operator)
    if key in OPERATOR_GUIDANCE:
        return OPERATOR_GUIDANCE[key]
    printed = prototype_member_text(key)
    return MISSING if printed is None else printed


def _joined(value: Any) -> str:
    """An element of `parts.join("\n")`: undefined and null print as nothing."""
    return "" if value is MISSING or value is None else js_string(value)


def _weight_label(rubric: Mapping[str, Any]) -> str:
    weight = rubric.get("weight", MISSING)
    return "" if weight == 1 and not isinstance(weight, bool) else f" (weight: {js_string(weight)})"


def _checklist_prompt(grading: _Grading, rubrics: Sequence[Mapping[str, Any]]) -> str:
    parts = grading.head(
        ["You are an expert grader. Evaluate the candidate answer against each rubric item below."]
    )
    parts.append("[[ ## rubrics ## ]]")
    guidance = _operator_guidance(rubrics)
    if guidance:
        parts += ["", "Operator guidance:", *(f"- {js_string(g)}" for g in guidance), ""]
    for rubric in rubrics:
        required = " (REQUIRED)" if _is_truthy(rubric.get("required")) else ""
        operator = rubric.get("operator")
        operator_label = f" (operator: {js_string(operator)})" if _is_truthy(operator) else ""
        parts.append(
            f"- [{js_string(rubric.get('id', MISSING))}]{required}{_weight_label(rubric)}{operator_label}: "
            f"{js_string(rubric.get('outcome', MISSING))}"
        )
    parts += ["", "For each rubric, determine if it is satisfied and provide brief reasoning."]
    return "\n".join(parts)


def _score_range_prompt(grading: _Grading, rubrics: Sequence[Mapping[str, Any]]) -> str:
    parts = grading.head(
        [
            "You are an expert grader. Score the candidate answer on each criterion below using the provided score ranges.",
            "For each criterion, output an integer score from 0 to 10 based on which score range best matches the answer.",
        ]
    )
    parts.append("[[ ## scoring_criteria ## ]]")
    for rubric in rubrics:
        min_score = rubric.get("min_score", MISSING)
        required_min = rubric.get("required_min_score", MISSING)
        if min_score is not MISSING:
            min_label = f" [REQUIRED: min score {js_string(min_score)}]"
        elif required_min is not MISSING:
            min_label = f" [REQUIRED: min score {js_string(required_min)}]"
        else:
            min_label = ""
        parts += [
            "",
            f"### Criterion: {js_string(rubric.get('id', MISSING))}{_weight_label(rubric)}{min_label}",
        ]
        if _is_truthy(rubric.get("operator")):
            parts.append(f"Operator: {js_string(rubric['operator'])}")
        if _is_truthy(rubric.get("outcome")):
            parts.append(f"Description: {js_string(rubric['outcome'])}")
        ranges = rubric.get("score_ranges")
        if isinstance(ranges, list | str) and ranges:
            parts.append("Score ranges:")
            for entry in ranges:
                # `const [min, max] = range.score_range` throws unless it is iterable
                span = entry.get("score_range") if isinstance(entry, Mapping) else None
                if not isinstance(entry, Mapping) or not isinstance(span, list | str):
                    raise _GraderThrows
                items: list[Any] = list(span)
                low = items[0] if len(items) > 0 else MISSING
                high = items[1] if len(items) > 1 else MISSING
                label = (
                    js_string(low) if _js_strict_equal(low, high) else f"{js_string(low)}-{js_string(high)}"
                )
                parts.append(f"  - Score {label}: {js_string(entry.get('outcome', MISSING))}")
    guidance = _operator_guidance(rubrics)
    if guidance:
        parts += ["", *map(_joined, guidance)]
    parts += [
        "",
        "For each criterion, provide an integer score 0-10 that matches one of its defined score ranges.",
    ]
    return "\n".join(parts)


def _js_strict_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return (a is None and b is None) or (a is MISSING and b is MISSING)


def _has_length(value: Any) -> bool:
    """`value && value.length > 0` for a JSON value."""
    return isinstance(value, list | str) and len(value) > 0


def _has_score_ranges(rubrics: Sequence[Mapping[str, Any]]) -> bool:
    return any(_has_length(r.get("score_ranges")) for r in rubrics)


class _GraderThrows(Exception):
    """The runtime's grader would throw (a TypeError on an odd config): it sends no request and
    the next grader runs. Only unparsed configs (conversation turns pass theirs through) get here."""


class _RunThrows(Exception):
    """The whole grading throws (a null grader in a conversation turn): no request at all."""


def _rubric_items(raw: Any) -> list[Mapping[str, Any]] | None:
    """The rubrics when they switch the grader to rubric mode (`rubrics && rubrics.length > 0`)."""
    if not _has_length(raw):
        return None
    if isinstance(raw, str) or any(item is None for item in raw):
        raise _GraderThrows  # `rubrics.some(...)` on a string, `null.score_ranges`
    return [item if isinstance(item, Mapping) else {} for item in raw]


def _custom_prompt(config: GraderConfig, fs: FileSystem, messages: list[RuntimeMessage] | None) -> str | None:
    """`resolveCustomPrompt` without scripts: the prompt file's text, else the inline string."""
    prompt_path = config.get("resolvedPromptPath") or config.get("promptPath")
    if isinstance(prompt_path, str) and prompt_path:
        try:
            return crlf_to_lf(fs.read_text(prompt_path))
        except FileReadError as exc:
            if messages is not None:
                messages.append(
                    RuntimeMessage(
                        "warn",
                        f"Could not read custom prompt at {prompt_path}: {exc}",
                        "v4-grader-prompt-unreadable",
                        file=prompt_path,
                    )
                )
    prompt = config.get("prompt")
    return prompt if isinstance(prompt, str) else None


def _llm_grader_request(
    config: GraderConfig, grading: _Grading, fs: FileSystem, messages: list[RuntimeMessage] | None
) -> dict[str, str]:
    custom = _custom_prompt(config, fs, messages)
    from_inline = not config.get("resolvedPromptPath") and not config.get("promptPath")
    override: str | None = None
    if custom:  # an empty prompt changes nothing
        if not from_inline or contains_template_variables(custom):
            override = custom
        else:
            grading = _Grading(
                grading.question,
                grading.question,
                custom,
                grading.reference_answer,
                grading.metadata,
                grading.candidate,
            )
    raw_rubrics = config.get("rubrics", MISSING)
    rubrics = _rubric_items(raw_rubrics)
    variables = grading.variables(raw_rubrics)
    if rubrics:
        if _has_score_ranges(rubrics):
            question = (
                substitute_variables(override, variables)
                if override
                else _score_range_prompt(grading, rubrics)
            )
            return {"question": question, "systemPrompt": SCORE_RANGE_SYSTEM_PROMPT}
        question = (
            substitute_variables(override, variables) if override else _checklist_prompt(grading, rubrics)
        )
        return {"question": question, "systemPrompt": CHECKLIST_SYSTEM_PROMPT}
    template = override if override is not None else DEFAULT_GRADER_TEMPLATE
    return {"question": substitute_variables(template, variables), "systemPrompt": FREEFORM_SYSTEM_PROMPT}


def _is_script_prompt(config: GraderConfig) -> bool:
    script = config.get("resolvedPromptScript")
    return isinstance(script, list) and len(script) > 0


def _first_request(
    grading: _Grading,
    assertions: Sequence[GraderConfig] | None,
    fs: FileSystem,
    messages: list[RuntimeMessage] | None,
) -> dict[str, str] | bool | None:
    """`runEvaluatorsForCase`: the first request, None when a prompt script sends it (unknown),
    False when no grader sends one."""
    if not assertions:
        return {
            "question": substitute_variables(DEFAULT_GRADER_TEMPLATE, grading.variables(MISSING)),
            "systemPrompt": FREEFORM_SYSTEM_PROMPT,
        }
    for config in assertions:
        if config is None:
            raise _RunThrows  # the runtime's error handler itself reads `null.name`
        if not isinstance(config, Mapping) or config.get("type") != "llm-grader":
            continue
        if _is_script_prompt(config):
            return None
        try:
            return _llm_grader_request(config, grading, fs, messages)
        except _GraderThrows:
            continue
    return False


def build_grader_prompt(
    *,
    formatted_question: str,
    test_question: str,
    criteria: str,
    reference_answer: str,
    assertions: Sequence[GraderConfig] | None,
    fs: FileSystem,
    metadata: Any = MISSING,
    candidate: str = CANDIDATE_PLACEHOLDER,
    messages: list[RuntimeMessage] | None = None,
    conversation: Conversation | None = None,
) -> dict[str, str] | None:
    """The first grader request of a test, `{"question", "systemPrompt"}`, or None when no LLM
    grader sends one (only deterministic/code graders, or a prompt script comes first).

    `formatted_question` is `buildPromptInputs(test, mode).question` for the mode the candidate
    ran in; `test_question` the test's own `question` (used when the formatted one is blank);
    `metadata` the test's merged metadata (MISSING or None when it has none); `messages`
    collects what the runtime would print (an unreadable prompt file). A test in conversation
    mode passes its `conversation` (then the formatted question plays no part).
    """
    try:
        if conversation is not None and conversation.turns:
            return _conversation_request(
                conversation, criteria, reference_answer, assertions, fs, metadata, candidate, messages
            )
        grading = _Grading(formatted_question, test_question, criteria, reference_answer, metadata, candidate)
        found = _first_request(grading, assertions, fs, messages)
    except _RunThrows:
        return None
    return found if isinstance(found, dict) else None


@dataclass(frozen=True, slots=True)
class Conversation:
    """`mode: conversation` with `turns`: the loaded input messages, the raw turns, `window_size`."""

    input: Sequence[Mapping[str, Any]]
    turns: Sequence[Any]
    window_size: int | float | None = None
    keys: Keys = V4_KEYS  # how a turn names its keys


def conversation_of(test: V4Test, keys: Keys = V4_KEYS) -> Conversation | None:
    """The conversation a test runs as (`mode: conversation` and a non-empty `turns` list), else None."""
    raw = test.raw if isinstance(test.raw, Mapping) else {}
    turns = raw.get(keys.turns)
    if raw.get(keys.mode) != "conversation" or not isinstance(turns, list) or not turns:
        return None
    window = raw.get(keys.window_size)
    usable = isinstance(window, int | float) and not isinstance(window, bool) and window >= 1
    return Conversation(test.input, turns, window if usable else None, keys)


def _content_text(content: Any) -> str:
    """`typeof c === 'string' ? c : JSON.stringify(c)`, then as a template literal prints it."""
    if isinstance(content, str):
        return content
    if content is MISSING:
        return "undefined"
    try:
        return js_json_stringify(content)
    except TypeError:
        return "undefined"


def _window(history: list[tuple[str, str]], size: int | float | None) -> list[tuple[str, str]]:
    if not size:
        return history
    system = [m for m in history if m[0] == "system"]
    others = [m for m in history if m[0] != "system"]
    keep = int(size * 2)  # slice(-n) truncates a fractional n toward zero
    return system + others[-keep:]


def _transcript(history: list[tuple[str, str]]) -> str:
    return "\n\n".join(f"{role}: {content}" for role, content in history)


def _turn_graders(turn: Mapping[str, Any], keys: Keys) -> list[GraderConfig]:
    """`buildTurnAssertions`: strings become one rubric grader, objects pass through unparsed."""
    raw = turn.get(keys.assertions)
    if not isinstance(raw, list):
        return []
    texts = [a for a in raw if isinstance(a, str)]
    graders: list[GraderConfig] = []
    if texts:
        rubrics = [{"id": f"criterion-{i + 1}", "outcome": text, "weight": 1} for i, text in enumerate(texts)]
        graders.append({"name": "turn-rubrics", "type": "llm-grader", "rubrics": rubrics})
    graders += [a for a in raw if not isinstance(a, str)]
    return graders


def _conversation_request(
    conversation: Conversation,
    criteria: str,
    reference_answer: str,
    assertions: Sequence[GraderConfig] | None,
    fs: FileSystem,
    metadata: Any,
    candidate: str,
    messages: list[RuntimeMessage] | None,
) -> dict[str, str] | None:
    """`runConversationMode`: each turn adds the user input and the candidate's reply to the
    history and is graded on the (windowed) transcript; then the top-level graders grade the
    whole transcript. The first of those requests."""
    history = [
        (str(m.get("role")), _content_text(m.get("content", MISSING)))
        for m in conversation.input
        if isinstance(m, Mapping)
    ]
    keys = conversation.keys
    for raw_turn in conversation.turns:
        turn = raw_turn if isinstance(raw_turn, Mapping) else {}
        history.append(("user", _content_text(turn.get(keys.input, MISSING))))
        history.append(("assistant", candidate))
        graders = _turn_graders(turn, keys)
        if not graders and not _is_truthy(turn.get(keys.expected_output, MISSING)):
            continue  # scored 1.0 without a grader
        context = _transcript(_window(history, conversation.window_size))
        grading = _Grading(context, context, criteria, reference_answer, metadata, candidate)
        found = _first_request(grading, graders, fs, messages)
        if found is not False:
            return found if isinstance(found, dict) else None
    if assertions:
        transcript = _transcript(history)
        grading = _Grading(transcript, transcript, criteria, reference_answer, metadata, transcript)
        found = _first_request(grading, assertions, fs, messages)
        return found if isinstance(found, dict) else None
    return None


def grader_prompt_for_test(
    test: V4Test,
    inputs: PromptInputs,
    fs: FileSystem,
    *,
    candidate: str = CANDIDATE_PLACEHOLDER,
    messages: list[RuntimeMessage] | None = None,
    keys: Keys = V4_KEYS,
) -> dict[str, str] | None:
    """`build_grader_prompt` for a loaded test and the prompt inputs of one mode (LM for the
    preview); `keys`: the key names of the file the test was loaded from."""
    return build_grader_prompt(
        formatted_question=inputs.question,
        test_question=test.question,
        criteria=test.criteria,
        reference_answer=test.reference_answer,
        assertions=test.assertions,
        fs=fs,
        metadata=getattr(test, "metadata", MISSING),
        candidate=candidate,
        messages=messages,
        conversation=conversation_of(test, keys),
    )
