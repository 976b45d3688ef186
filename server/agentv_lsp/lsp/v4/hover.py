"""`textDocument/hover` for 4.x documents.

- On a file reference (`type: file|image` value, `input_files` item, `tests:` path, grader
  `prompt: file://…`): where it resolves (or where the runtime looked) and its first lines.
- Anywhere else inside a `tests` item: the test as AgentV 4.42.4 runs it: the exact LM-mode
  question, the system message, the chatPrompt turns, the criteria, and the first grader
  prompt (its system prompt and question), or why the runtime skips the test.
- In a cases file an eval file's `tests:` names: the test as that eval file runs it
  (`cases.py`).
- On a key outside the tests: its description from the 4.x JSON schema.
"""

from __future__ import annotations

import os
from typing import Any

from agentv_lsp.engine.jsrt import node_relative
from agentv_lsp.lsp.convert import from_client_col
from agentv_lsp.lsp.markdown import fence, file_head
from agentv_lsp.lsp.v4.cases import cases_context
from agentv_lsp.lsp.v4.last_run import hover_section, last_run_of
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.lsp.v4.preview import preview_at, preview_of_test, skipped_preview
from agentv_lsp.lsp.v4.references import Reference, reference_at
from agentv_lsp.lsp.v4.schema_nav import schema_for_path
from agentv_lsp.lsp.v4.units import unit_at
from agentv_lsp.lsp.yamlnav import path_at
from agentv_lsp.tokens import case_tokens_soon, counted, describe

MAX_TURNS_SHOWN = 6
_REF_NAMES = {
    "file": "File",
    "image": "Image",
    "input_file": "Input file",
    "tests": "Tests",
    "grader_prompt": "Grader prompt",
    "grader_script": "Grader prompt script",
}


def _first_line(text: str, limit: int = 100) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= limit else line[: limit - 1] + "…"


def markdown_of_test(preview: dict[str, Any], runtime: str) -> str:
    """A test's preview as hover Markdown."""
    name = preview.get("id") or "This test"
    if "error" in preview:
        return f"**{name}**: {preview['error']}"
    lm = preview.get("lm") or {}
    parts = [
        f"**Question** for `{name}` (LM mode, exactly as AgentV {runtime} sends it)",
        fence(str(lm.get("question", ""))),
    ]
    system = lm.get("systemMessage")
    if isinstance(system, str) and system:
        parts += ["**System message**", fence(system)]
    turns = lm.get("chatPrompt")
    if isinstance(turns, list) and turns:
        roles = ", ".join(str(t.get("role")) for t in turns if isinstance(t, dict))
        parts.append(f"**chatPrompt**: {len(turns)} turns ({roles})")
        if len(turns) <= MAX_TURNS_SHOWN:
            for turn in turns:
                if isinstance(turn, dict):
                    parts += [f"*{turn.get('role')}*", fence(str(turn.get("content", "")))]
    else:
        parts.append("*One flat question (no chatPrompt).*")
    criteria = preview.get("criteria")
    parts.append(f"**Criteria:** {criteria}" if criteria else "**Criteria:** none")
    assertions = preview.get("assertions")
    if isinstance(assertions, list) and assertions:
        kinds = ", ".join(f"`{a.get('type')}`" for a in assertions if isinstance(a, dict))
        parts.append(f"**Assertions:** {kinds}")
    judge = preview.get("judge_prompt")
    if isinstance(judge, dict):
        system_prompt = str(judge.get("systemPrompt") or "")
        heading = "**Grader prompt** (first LLM grader"
        heading += f"; system prompt: *{_first_line(system_prompt)}*)" if system_prompt else ")"
        parts += [heading, fence(str(judge.get("question", "")))]
    else:
        parts.append("*No LLM grader prompt (deterministic or script graders only).*")
    parts.append(f"*{describe(case_tokens_soon(preview))}*")
    warnings = preview.get("warnings")
    if isinstance(warnings, list) and warnings:
        parts.append("**AgentV warns:**\n" + "\n".join(f"- {str(w).splitlines()[0]}" for w in warnings if w))
    return "\n\n".join(parts)


def _test_markdown(model: V4Model, key: Any, preview: dict[str, Any]) -> str:
    """The test's hover, remembered once its tokens are counted (until then it says "counting…")."""
    if not counted(preview):
        return markdown_of_test(preview, model.choice.version)
    found: str = model.memoized(key, lambda: markdown_of_test(preview, model.choice.version))
    return found


def cases_hover(model: V4Model, line: int) -> str | None:
    """In a cases file: the test around `line` as the eval file that loads it runs it."""
    context = cases_context(model)
    entry = context.entry_at(line) if context is not None else None
    if context is None or entry is None:
        return None
    eval_model = context.eval_model
    if entry.tests:
        preview = preview_of_test(eval_model, entry.tests[0])
    elif entry.skipped is not None:
        preview = skipped_preview(eval_model, entry.skipped)
    else:
        return None
    where = os.path.relpath(eval_model.path, os.path.dirname(model.path))
    key = ("cases-hover", entry.start_line, preview.get("id"))
    body = _test_markdown(model, key, preview)
    return f"*As `{where}` loads it:*\n\n{body}"


def reference_markdown(model: V4Model, ref: Reference) -> str:
    name = _REF_NAMES[ref.kind]
    if ref.target is None:
        tried = "\n".join(f"- `{a}`" for a in ref.attempted)
        return f"**{name} not found:** `{ref.raw}`\n\nTried:\n{tried}"
    relative = node_relative(model.opts.repo_root, ref.target)
    lines = [f"**{name}** `{relative}` → `{ref.target}`"]
    head = _file_head(model, ref.target)
    if head is not None:
        lines.append(head)
    return "\n\n".join(lines)


def _file_head(model: V4Model, path: str) -> str | None:
    if os.path.isdir(path):
        try:
            names = sorted(os.listdir(path))
        except OSError:
            return None
        return "Folder: " + ", ".join(f"`{n}`" for n in names[:20]) + (" …" if len(names) > 20 else "")
    return file_head(model.opts.fs, path)


def hover_markdown(model: V4Model, line: int, character: int, encoding: str) -> str | None:
    if not model.agentv:
        return None
    unit = unit_at(model, line)
    if unit is not None:  # a large file: the test's own unit answers (same text, other line)
        return hover_markdown(unit[0], unit[1], character, encoding)
    text = model.line(line)
    col = from_client_col(text, character, encoding)
    if model.kind == "cases":
        found_here = cases_hover(model, line)
        if found_here is not None:
            return found_here
    if model.kind == "eval":
        ref = reference_at(model, line, col)
        if ref is not None:
            return reference_markdown(model, ref)
        preview = preview_at(model, line)
        if preview is not None:
            key = ("hover", preview.get("index"), preview.get("id"))
            found = _test_markdown(model, key, preview)
            last = hover_section(last_run_of(model, preview)) if "error" not in preview else None
            return found if last is None else f"{last}\n\n---\n\n{found}"
    root = model.doc.root
    if root is None:
        return None
    path, on_key = path_at(root, line, col)
    if on_key:
        schema = schema_for_path(model.kind, path)
        if schema is not None:
            description = schema.get("markdownDescription") or schema.get("description")
            if description:
                values = schema.get("enum")
                extra = ""
                if isinstance(values, list) and values:
                    extra = "\n\nOne of: " + ", ".join(f"`{v}`" for v in values[:20])
                return f"**{path[-1]}**\n\n{description}{extra}"
    return None
