"""`textDocument/hover` for v2 documents.

- On a case header (its `- ` line, `id`, `outcome`, `conversation_id`, `note`): the exact
  question AgentV sends in LM mode, in a fenced block, the chatPrompt turns when there are
  several, and the guidelines line.
- On a file reference (`value` of a `type: file` segment), an evaluator `prompt` or a code
  evaluator `cwd`: where it resolves, whether it becomes a guideline (and by which
  pattern), and the first lines of the file.
- On `execution.target`: the entry of the targets file.
- On a key: its description from our JSON schema.
"""

from __future__ import annotations

from typing import Any

from agentv_lsp.engine.jsrt import node_relative
from agentv_lsp.engine.targets_file import find_targets_file
from agentv_lsp.engine.tokens import case_tokens_soon
from agentv_lsp.formats.v2.config import matching_pattern
from agentv_lsp.formats.v2.loader import EvalFile
from agentv_lsp.formats.v2.model import YamlPath
from agentv_lsp.formats.v2.targets import read_targets
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
from agentv_lsp.lsp.v2.commands import case_preview
from agentv_lsp.lsp.v2.model import FileModel
from agentv_lsp.lsp.v2.schema_nav import schema_for_path
from agentv_lsp.lsp.yamlnav import path_at, value_at

CASE_HEADER_KEYS = ("id", "outcome", "conversation_id", "note")


def case_markdown(preview: dict[str, Any], link: str | None = None, *, short: bool = False) -> str:
    """A case's preview as hover Markdown: the glance line and the preview link first, then
    each prompt text once (the chatPrompt turns, or the flat question). `short`: the glance
    alone (on a diagnostic's range, whose hover VS Code shows above this one)."""
    name = code_span(str(preview.get("id") or "this case"))
    if "error" in preview:
        return f"**{name}** · {plain(str(preview['error']), 300)}" + (f"  \n{link}" if link else "")
    lm = preview["lm"]
    turns = lm["chatPrompt"]
    glance = [f"**{name}** · AgentV v2", tokens_phrase(case_tokens_soon(preview))]
    glance.append(f"{len(turns)} turns" if turns else "1 turn")
    guidelines = preview["guideline_paths"]
    if guidelines:
        glance.append(f"{len(guidelines)} guideline file{'s' if len(guidelines) != 1 else ''}")
    if preview.get("warnings"):
        glance.append(
            f"⚠ {len(preview['warnings'])} AgentV warning{'s' if len(preview['warnings']) != 1 else ''}"
        )
    head = " · ".join(glance) + (f"  \n{link}" if link else "")
    if short:
        return head
    parts = [head]
    if turns:
        parts.append("**Turns** (chatPrompt, as AgentV sends them in LM mode)")
        for turn in turns:
            parts += [f"*{plain(str(turn['role']))}*", fence(turn["content"])]
    else:
        parts += ["**Question** (LM mode, exactly as AgentV sends it)", fence(lm["question"])]
    parts.append("**Guidelines:** " + (", ".join(code_span(g) for g in guidelines) if guidelines else "none"))
    if preview.get("warnings"):
        parts.append(
            "**AgentV warns:**\n"
            + "\n".join(f"- {plain(w.splitlines()[0], 300)}" for w in preview["warnings"])
        )
    return "\n\n".join(parts)


def reference_markdown(ef: EvalFile, raw: str, guideline_candidate: bool) -> str:
    res = ef.resolve(raw)
    if res.resolved_path is None:
        tried = "\n".join(f"- `{a}`" for a in res.attempted)
        return f"**File not found:** `{res.display_path}`\n\nTried:\n{tried}"
    relative = node_relative(ef.repo_root, res.resolved_path)
    lines = [f"**{relative}** → `{res.resolved_path}`"]
    if guideline_candidate:
        pattern = matching_pattern(relative, ef.config.guideline_patterns)
        if pattern is not None:
            config = node_relative(ef.repo_root, ef.config.path) if ef.config.path else "config"
            lines.append(
                f"Guideline: **yes**, by pattern `{pattern}` ({config}): its content goes to the guidelines block."
            )
        else:
            lines.append("Guideline: **no**: inlined as `<file path=…>` in LM mode, listed in agent mode.")
    head = file_head(ef.fs, res.resolved_path)
    if head is not None:
        lines.append(head)
    return "\n\n".join(lines)


def target_markdown(ef: EvalFile, name: str) -> str | None:
    targets_path = find_targets_file(ef.path, ef.repo_root, ef.cwd, ef.fs)
    if targets_path is None:
        return f"**Target `{name}`**: no targets.yaml found (looked from this folder up to the repo root)."
    targets = read_targets(targets_path, ef.fs)
    if targets is None:
        return None
    relative = node_relative(ef.repo_root, targets_path)
    if name not in targets.names:
        return f"**Target `{name}`** is not defined in `{relative}` (available: {', '.join(targets.names) or 'none'})."
    provider = targets.providers.get(name, "?")
    return f"**Target `{name}`**: provider `{provider}` ({relative}, entry {targets.names[name] + 1})"


def hover_markdown(model: FileModel, line: int, character: int, encoding: str) -> str | None:
    text = model.line(line)
    col = from_client_col(text, character, encoding)
    located = model.locate(line)
    doc = located.doc
    if doc.root is None:
        return None
    doc_path, on_key = path_at(doc.root, located.line, col)
    path = located.file_path(doc_path)
    if model.kind == "eval":
        case = model.case_at(line)
        lines = model.case_lines()
        dash = case is not None and lines[case] == line and text[:col].strip() in ("", "-")
        if case is not None and (
            dash
            or path == ("evalcases", case)
            or (len(path) == 3 and path[2] in CASE_HEADER_KEYS and path[1] == case)
        ):
            preview = case_preview(model, case)
            if preview is None:
                return None
            link = preview_link(path_to_uri(model.path), preview.get("id"), line)
            return case_markdown(preview, link, short=flagged_at(model.diagnostics(), model.path, line, col))
        ef = located.ef
        if ef is not None and not on_key:
            found = _reference(ef, doc.value, doc_path, path)
            if found is not None:
                return found
    if on_key and model.kind is not None:
        schema = schema_for_path(model.kind, path)
        if schema is not None:
            description = schema.get("markdownDescription") or schema.get("description")
            if description:
                extra = ""
                values = schema.get("enum")
                if isinstance(values, list) and values:
                    extra = "\n\nOne of: " + ", ".join(f"`{v}`" for v in values[:20])
                return f"**{path[-1]}**\n\n{description}{extra}"
    return None


def _reference(ef: EvalFile, value: Any, doc_path: YamlPath, path: YamlPath) -> str | None:
    if not doc_path:
        return None
    leaf = value_at(value, doc_path)
    if not isinstance(leaf, str) or not leaf:
        return None
    parent = value_at(value, doc_path[:-1])
    key = doc_path[-1]
    if key == "value" and isinstance(parent, dict) and parent.get("type") == "file" and "content" in path:
        return reference_markdown(ef, leaf, guideline_candidate=len(path) > 2 and path[2] == "input_messages")
    if key in ("prompt", "cwd") and "evaluators" in path and isinstance(parent, dict):
        return reference_markdown(ef, leaf, guideline_candidate=False)
    if path in (("execution", "target"), ("target",)):
        return target_markdown(ef, leaf.strip())
    return None
