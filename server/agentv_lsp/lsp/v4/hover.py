"""`textDocument/hover` for 4.x documents.

- On a file reference (`type: file|image` value, `input_files` item, `tests:` path, grader
  `prompt: file://…`): where it resolves (or where the runtime looked) and its first lines.
- Anywhere else inside a `tests` item: the test as AgentV 4.42.4 runs it. First what a glance
  needs (whether it runs, token counts, turns, files, warnings) and a link to the preview
  panel; then each prompt text once: the chatPrompt turns or the flat question, the system
  message if not among them, the criteria, the first grader prompt (the question not again).
  On a diagnostic's range only the glance: VS Code shows the diagnostic's hover above ours.
- In a cases file an eval file's `tests:` names: the test as that eval file runs it
  (`cases.py`).
- On a key outside the tests: its description from the 4.x JSON schema.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

from agentv_lsp.engine.jsrt import node_relative
from agentv_lsp.engine.tokens import case_tokens_soon, counted
from agentv_lsp.formats.v4.model import RuntimeMessage, SkippedTest, SuiteLoad, V4Test, YamlPath
from agentv_lsp.lsp.base import DocumentModel
from agentv_lsp.lsp.convert import from_client_col, path_to_uri
from agentv_lsp.lsp.markdown import (
    code_span,
    fence,
    file_head,
    flagged_at,
    plain,
    preview_link,
    tokens_phrase,
)
from agentv_lsp.lsp.v4.cases import cases_context
from agentv_lsp.lsp.v4.last_run import hover_section, last_run_of, lens_text
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.lsp.v4.references import Reference, reference_at
from agentv_lsp.lsp.v4.schema_nav import schema_for_path
from agentv_lsp.lsp.v4.units import unit_at
from agentv_lsp.lsp.yamlnav import path_at

MAX_TURNS_SHOWN = 6
_REF_NAMES = {
    "file": "File",
    "image": "Image",
    "input_file": "Input file",
    "tests": "Tests",
    "grader_prompt": "Grader prompt",
    "grader_script": "Grader prompt script",
}


# -- a test as AgentV 4.42.4 runs it (cached per test and version) ----------------------------

ROLE_MARKERS = ("@[System]:", "@[User]:", "@[Assistant]:", "@[Tool]:")


def preview_of_test(model: V4Model, test: V4Test) -> dict[str, Any]:
    """One loaded test as the commands return it (cached on the model)."""
    index = model.test_index(test)
    found: dict[str, Any] = model.memoized(("preview", index), lambda: _preview(model, test, index))
    return found


def _preview(model: V4Model, test: V4Test, index: int) -> dict[str, Any]:
    suite = model.suite
    assert suite is not None  # a test was loaded, so the suite was
    from agentv_lsp.formats.v4.preview import preview_test

    printed: list[RuntimeMessage] = []
    result = preview_test(suite, test, model.opts.fs, printed)
    lm = result.get("lm") or {}
    question = lm.get("question") if isinstance(lm, dict) else None
    here = os.path.normcase(test.source_file) == os.path.normcase(model.path)
    position = test.yaml_path[1] if here and len(test.yaml_path) > 1 else index
    result.update(
        {
            "index": position,
            "expected_outcome": test.criteria,
            "guideline_paths": [],
            "role_markers": isinstance(question, str) and question.startswith(ROLE_MARKERS),
            "systemMessage": lm.get("systemMessage") if isinstance(lm, dict) else None,
            "runtime": model.choice.version,
            "runtime_reason": model.choice.reason,
            "warnings": [m.text for m in messages_about(suite, test.source_file, test.yaml_path)]
            + [m.text for m in printed],
        }
    )
    return result


def skipped_preview(model: V4Model, skipped: SkippedTest) -> dict[str, Any]:
    """A test the runtime drops: the reason, as v2 reports a skipped case."""
    suite = model.suite
    messages = messages_about(suite, skipped.source_file, skipped.yaml_path) if suite is not None else []
    return {
        "id": skipped.id,
        "index": skipped.yaml_path[1] if len(skipped.yaml_path) > 1 else None,
        "error": f"AgentV skips this test: {skipped.reason}",
        "warnings": [m.text for m in messages] or [skipped.reason],
        "runtime": model.choice.version,
    }


def renumbered(preview: dict[str, Any] | None, index: int) -> dict[str, Any] | None:
    """A unit's preview (its test is `tests[0]` there) for test `index` of the file."""
    if preview is None or preview.get("index") == index:
        return preview
    return {**preview, "index": index}


def messages_about(suite: SuiteLoad, source_file: str, yaml_path: YamlPath) -> list[RuntimeMessage]:
    """The runtime messages located inside one `tests` entry."""
    size = len(yaml_path)
    where = os.path.normcase(source_file)
    return [
        m
        for m in suite.messages
        if m.yaml_path is not None
        and m.yaml_path[:size] == yaml_path
        and m.file is not None
        and os.path.normcase(m.file) == where
    ]


def preview_at(model: V4Model, line: int) -> dict[str, Any] | None:
    """The preview of the test written around `line` (None outside any test). In a large
    file, from the test's own unit (see `units`)."""
    found = unit_at(model, line)
    if found is not None:
        unit, unit_line, index = found
        return renumbered(preview_at(unit, unit_line), index)
    entry = model.entry_at(line)
    if entry is None:
        return None
    if entry.tests:
        return preview_of_test(model, entry.tests[0])
    if entry.skipped is not None:
        return skipped_preview(model, entry.skipped)
    return None


def _first_line(text: str, limit: int = 100) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= limit else line[: limit - 1] + "…"


def glance(preview: dict[str, Any], runtime: str) -> str:
    """The first line of a test's hover: what a glance needs (whether AgentV runs it, the
    token counts, the turns, the files, the warnings)."""
    name = code_span(str(preview.get("id") or "this test"))
    if "error" in preview:
        return f"**{name}** · {plain(str(preview['error']), 300)}"
    parts = [f"**{name}** · runs in AgentV {runtime}", tokens_phrase(case_tokens_soon(preview))]
    turns = (preview.get("lm") or {}).get("chatPrompt")
    count = len(turns) if isinstance(turns, list) and turns else 1
    parts.append(f"{count} turn{'s' if count != 1 else ''}")
    files = [str(f) for f in preview.get("file_paths") or []]
    if files:
        shown = ", ".join(code_span(os.path.basename(f)) for f in files[:3])
        more = f" +{len(files) - 3}" if len(files) > 3 else ""
        parts.append(f"{len(files)} file{'s' if len(files) != 1 else ''}: {shown}{more}")
    warnings = [w for w in preview.get("warnings") or [] if w]
    if warnings:
        parts.append(f"⚠ {len(warnings)} AgentV warning{'s' if len(warnings) != 1 else ''}")
    return " · ".join(parts)


def markdown_of_test(
    preview: dict[str, Any], runtime: str, link: str | None = None, *, short: bool = False
) -> str:
    """A test's preview as hover Markdown: the glance line and the preview link first, then
    each prompt text once (the turns, or the flat question; the grader prompt without the
    question again). `short`: the glance alone (on a diagnostic's range, whose hover VS Code
    shows above this one: its "Did you mean" and Quick Fix stay in view)."""
    head = glance(preview, runtime) + (f"  \n{link}" if link else "")
    if short:
        return head
    if "error" in preview:
        return head + _warnings(preview)
    lm = preview.get("lm") or {}
    parts = [head]
    shown: list[str] = []
    turns = lm.get("chatPrompt")
    if isinstance(turns, list) and turns:
        parts.append(f"**Turns** (chatPrompt, as AgentV {runtime} sends them in LM mode)")
        kept = [t for t in turns if isinstance(t, dict)]
        if len(kept) > MAX_TURNS_SHOWN:
            parts.append(f"*… {len(kept) - 1} earlier turns in the preview panel*")
            kept = kept[-1:]
        for turn in kept:
            content = str(turn.get("content", ""))
            parts += [f"*{plain(str(turn.get('role')))}*", fence(content)]
            shown.append(content)
    else:
        question = str(lm.get("question", ""))
        parts += [f"**Question** (LM mode, exactly as AgentV {runtime} sends it)", fence(question)]
        shown.append(question)
    system = lm.get("systemMessage")
    if isinstance(system, str) and system and not any(system in text for text in shown):
        parts += ["**System message**", fence(system)]
    criteria = preview.get("criteria")
    parts.append(f"**Criteria:** {plain(str(criteria), 500)}" if criteria else "**Criteria:** none")
    assertions = preview.get("assertions")
    if isinstance(assertions, list) and assertions:
        kinds = ", ".join(code_span(str(a.get("type"))) for a in assertions if isinstance(a, dict))
        parts.append(f"**Assertions:** {kinds}")
    judge = preview.get("judge_prompt")
    if isinstance(judge, dict):
        system_prompt = str(judge.get("systemPrompt") or "")
        heading = "**Grader prompt** (first LLM grader"
        heading += f"; system prompt: {_summary(system_prompt)})" if system_prompt.strip() else ")"
        question = str(lm.get("question", ""))
        grader_question = str(judge.get("question", ""))
        if len(question) >= 8 and grader_question.count(question) == 1:  # said above: not again
            grader_question = grader_question.replace(question, "⟨the question above⟩")
        parts += [heading, fence(grader_question)]
    else:
        parts.append("*No LLM grader prompt (deterministic or script graders only).*")
    return "\n\n".join(parts) + _warnings(preview)


def _warnings(preview: dict[str, Any]) -> str:
    warnings = [w for w in preview.get("warnings") or [] if w]
    if not warnings:
        return ""
    return "\n\n**AgentV warns:**\n" + "\n".join(f"- {plain(str(w).splitlines()[0], 300)}" for w in warnings)


_SCHEMA_KEY = re.compile(r'^\s{1,4}"([A-Za-z_][\w-]*)"\s*:', re.M)


def _summary(system_prompt: str) -> str:
    """A grader system prompt in a few words: its first line, and when that line only
    introduces what follows (ends on a colon), what follows: the fields of a JSON answer
    format, else the next line."""
    lines = [line.strip() for line in system_prompt.strip().split("\n") if line.strip()]
    first = _first_line(lines[0]) if lines else ""
    count = len(system_prompt.strip().split("\n"))
    size = f" ({count} lines)" if count > 1 else ""
    if not first.endswith(":"):
        return f"*{plain(first)}*{size}"
    fields = list(dict.fromkeys(_SCHEMA_KEY.findall(system_prompt)))
    if fields:
        return f"*{plain(first[:-1])}* with {', '.join(code_span(f) for f in fields[:6])}{size}"
    rest = f" {_first_line(lines[1])}" if len(lines) > 1 else ""
    return f"*{plain(first + rest)}*{size}"


def _remembered(model: V4Model, key: Any, preview: dict[str, Any], make: Callable[[], str]) -> str:
    """A test's hover, remembered once its tokens are counted (until then it says "counting…",
    and the next hover asks again)."""
    if not counted(preview):
        return make()
    found: str = model.memoized(key, make)
    return found


def _test_markdown(model: V4Model, key: Any, preview: dict[str, Any], link: str | None, short: bool) -> str:
    return _remembered(
        model, key, preview, lambda: markdown_of_test(preview, model.choice.version, link, short=short)
    )


def with_last_run(found: str, last_run: dict[str, Any], short: bool) -> str:
    """The test's hover with its last AgentV run: the verdict on the glance line, then (unless
    `short`) the run's detail before the prompts."""
    head, _, rest = found.partition("\n\n")
    glance_line, newline, link = head.partition("  \n")
    head = f"{glance_line} · last run {lens_text(last_run)}{newline}{link}"
    if short:
        return head
    section = hover_section(last_run)
    return "\n\n".join(part for part in (head, section, rest) if part)


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
    body = _remembered(model, key, preview, lambda: markdown_of_test(preview, model.choice.version))
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
    fs = model.opts.fs
    if fs.is_dir(path):
        entries = fs.folder_entries(path)
        if entries is None:
            return None
        names = [name for name, _is_dir in entries]
        return "Folder: " + ", ".join(f"`{n}`" for n in names[:20]) + (" …" if len(names) > 20 else "")
    return file_head(fs, path)


def hover_markdown(
    model: V4Model, line: int, character: int, encoding: str, *, file_line: int | None = None
) -> str | None:
    """`file_line`: the line in the file (`line` is the unit's in a large file)."""
    if not model.agentv:
        return None
    file_line = line if file_line is None else file_line
    unit = unit_at(model, line)
    if unit is not None:  # a large file: the test's own unit answers (same text, other line)
        return hover_markdown(unit[0], unit[1], character, encoding, file_line=file_line)
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
            link = preview_link(path_to_uri(model.path), preview.get("id"), file_line)
            short = flagged_at(model.report().diagnostics, model.path, line, col)
            key = ("hover", preview.get("index"), preview.get("id"), link, short)
            found = _test_markdown(model, key, preview, link, short)
            last = last_run_of(model, preview) if "error" not in preview else None
            return found if last is None else with_last_run(found, last, short)
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


def hover(model: DocumentModel, line: int, character: int, encoding: str) -> str | None:
    """`EditorFormat.hover` (`lsp/v4.EDITOR` calls this function as its method): `hover_markdown`
    of a model this format built."""
    assert isinstance(model, V4Model), type(model)
    return hover_markdown(model, line, character, encoding)
