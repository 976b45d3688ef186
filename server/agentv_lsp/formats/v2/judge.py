"""The LLM judge prompt (evaluators.ts `LlmJudgeEvaluator`, orchestrator `resolveCustomPrompt`).

The judge receives the candidate's formatted question for the same mode (trimmed; the
legacy space-joined text when blank), never the guidelines. A custom `prompt` replaces the
whole user template; the system prompt is always the output schema.
"""

from __future__ import annotations

import re

from agentv_lsp.engine.files import FileReadError, FileSystem
from agentv_lsp.engine.jsrt import crlf_to_lf, is_blank, js_trim
from agentv_lsp.formats.v2.model import EvalCase, EvaluatorConfig, JudgePrompt, Notice, PromptInputs
from agentv_lsp.yamlpos.scalars import js_json_stringify

# What the candidate_answer variable holds in a preview: there is no candidate yet. The
# golden recordings used this same placeholder.
CANDIDATE_PLACEHOLDER = "CANDIDATE_ANSWER"

DEFAULT_TEMPLATE = """You are an expert evaluator. Your goal is to grade the candidate_answer based on how well it achieves the expected_outcome for the original task.

Use the reference_answer as a gold standard for a high-quality response (if provided). The candidate_answer does not need to match it verbatim, but should capture the key points and follow the same spirit.

Be concise and focused in your evaluation. Provide succinct, specific feedback rather than verbose explanations.

[[ ## expected_outcome ## ]]
{{expected_outcome}}

[[ ## question ## ]]
{{question}}

[[ ## reference_answer ## ]]
{{reference_answer}}

[[ ## candidate_answer ## ]]
{{candidate_answer}}"""

SYSTEM_PROMPT = "\n".join(
    [
        "You must respond with a single JSON object matching this schema:",
        "",
        "{",
        '  "score": <number between 0.0 and 1.0>,',
        '  "hits": [<array of strings, max 4 items, brief specific achievements>],',
        '  "misses": [<array of strings, max 4 items, brief specific failures or omissions, empty if none>],',
        '  "reasoning": "<string, concise explanation for the score, 1-2 sentences max>"',
        "}",
    ]
)

VARIABLE = re.compile(r"\{\{([a-zA-Z0-9_]+)\}\}")
KNOWN_VARIABLES = (
    "question",
    "expected_outcome",
    "reference_answer",
    "candidate_answer",
    "input_messages",
    "output_messages",
)
# The runtime looks variables up on a plain object, so `{{constructor}}` and friends find
# Object.prototype members and print them (`variables[name] ?? match`).
_PROTOTYPE_MEMBERS = {
    name: f"function {name}() {{ [native code] }}"
    for name in (
        "constructor",
        "hasOwnProperty",
        "isPrototypeOf",
        "propertyIsEnumerable",
        "toLocaleString",
        "toString",
        "valueOf",
        "__defineGetter__",
        "__defineSetter__",
        "__lookupGetter__",
        "__lookupSetter__",
    )
}
_PROTOTYPE_MEMBERS["constructor"] = "function Object() { [native code] }"
_PROTOTYPE_MEMBERS["__proto__"] = "[object Object]"


def substitute(template: str, variables: dict[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in variables:
            return variables[name]
        return _PROTOTYPE_MEMBERS.get(name, match.group(0))

    return VARIABLE.sub(replace, template)


def judge_variables(
    case: EvalCase, inputs: PromptInputs, candidate: str = CANDIDATE_PLACEHOLDER
) -> dict[str, str]:
    question = inputs.question if not is_blank(inputs.question) else case.question
    return {
        "input_messages": js_json_stringify(case.input_segments, 2),
        "output_messages": js_json_stringify(case.output_segments, 2),
        "candidate_answer": js_trim(candidate),
        "reference_answer": js_trim(case.reference_answer),
        "expected_outcome": js_trim(case.expected_outcome),
        "question": js_trim(question),
    }


def custom_template(
    evaluator: EvaluatorConfig, fs: FileSystem, notices: list[Notice] | None = None
) -> str | None:
    """`resolveCustomPrompt`: the prompt file's text, else the raw `prompt` string."""
    if evaluator.prompt_path:
        try:
            return crlf_to_lf(fs.read_text(evaluator.prompt_path))
        except FileReadError as exc:
            if notices is not None:
                notices.append(
                    Notice(
                        "judge-prompt-unreadable",
                        f"Could not read custom prompt at {evaluator.prompt_path}: {exc}",
                        yaml_path=(*evaluator.yaml_path, "prompt"),
                        prefixed=False,
                    )
                )
    return evaluator.prompt


def judge_evaluator(case: EvalCase) -> EvaluatorConfig | bool | None:
    """The evaluator whose request comes first: an llm_judge config, True for the built-in
    default judge (no evaluator list), or False when only code evaluators run."""
    if case.evaluators:
        for evaluator in case.evaluators:
            if evaluator.type == "llm_judge":
                return evaluator
        return False
    return True


def build_judge_prompt(
    case: EvalCase,
    inputs: PromptInputs,
    fs: FileSystem,
    notices: list[Notice] | None = None,
    candidate: str = CANDIDATE_PLACEHOLDER,
) -> JudgePrompt | None:
    """The first judge request of the case (None when no LLM judge runs)."""
    chosen = judge_evaluator(case)
    if chosen is False:
        return None
    template = DEFAULT_TEMPLATE
    name: str | None = None
    if isinstance(chosen, EvaluatorConfig):
        name = chosen.name
        override = custom_template(chosen, fs, notices)
        if override is not None:
            template = override
    return JudgePrompt(substitute(template, judge_variables(case, inputs, candidate)), SYSTEM_PROMPT, name)
