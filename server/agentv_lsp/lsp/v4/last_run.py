"""A test's last AgentV run in the editor: the lens text beside its summary and the hover section
(`agentv_lsp.results` reads the runs; here they are matched to the document's tests)."""

from __future__ import annotations

from typing import Any

from agentv_lsp.engine.jsrt import relative_display
from agentv_lsp.lsp.markdown import fence
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.report import one_line
from agentv_lsp.results import EDITOR_RESULTS, STATUS_MARKS, ago, last_run_json, prompt_changes

REASONING_LINES = 6


def last_run_of(model: V4Model, preview: dict[str, Any]) -> dict[str, Any] | None:
    """`last_run` of a loaded test's preview (as `preview --json` gives it), None when no run
    has it. The runtime records the eval file repo-relative (tests from a cases file too)."""
    opts = model.opts
    results = EDITOR_RESULTS.get((opts.cwd, opts.repo_root), opts.fs)
    test_id = preview.get("id")
    if not results.rows or not isinstance(test_id, str):
        return None
    eval_path = relative_display(model.path, opts.repo_root).replace("\\", "/")
    record = results.latest(eval_path, test_id)
    if record is None:
        return None
    found: dict[str, Any] = last_run_json(record, preview, opts.fs, opts.repo_root)
    if found["stale"]:
        found["changes"] = prompt_changes(record, preview, opts.fs)
    return found


def lens_text(last_run: dict[str, Any] | None) -> str:
    """`✓ 1.00 · default · 3 min ago`, `✗ 0.00 · …`, with `· stale` when the prompt changed."""
    if last_run is None:
        return ""
    parts = [STATUS_MARKS.get(str(last_run.get("status")), "?")]
    score = last_run.get("score")
    if isinstance(score, int | float):
        parts[0] += f" {score:.2f}"
    if last_run.get("target"):
        parts.append(one_line(str(last_run["target"]), 40))
    when = ago(str(last_run.get("timestamp") or ""))
    if when:
        parts.append(when)
    if last_run.get("stale"):
        parts.append("stale")
    return " · ".join(parts)


def hover_section(last_run: dict[str, Any] | None) -> str | None:
    """The hover's "Last run" part: verdict, score, each grader's verdict and reasoning, the answer
    (each cut), and whether the prompt changed since."""
    if last_run is None:
        return None
    lines = [f"**Last run** {lens_text(last_run)} — `{one_line(str(last_run.get('run')), 120)}`"]
    if last_run.get("stale"):
        lines.append("")
        lines.append(
            "*stale: the prompt changed since this run* (`-` what it sent, `+` what the test sends now):"
        )
        lines.append(fence("\n".join(one_line(c, 160) for c in last_run.get("changes") or []), "diff"))
    for grader in last_run.get("graders") or []:
        name = one_line(str(grader.get("name") or grader.get("type") or "grader"), 60)
        verdict = grader.get("verdict") or "?"
        score = grader.get("score")
        shown = f" {score:.2f}" if isinstance(score, int | float) else ""
        lines.append(f"- {name}: {one_line(str(verdict), 20)}{shown}")
        reasoning = grader.get("reasoning")
        if reasoning:
            kept = str(reasoning).splitlines()[:REASONING_LINES]
            lines.extend(f"  > {one_line(line, 200)}" for line in kept)
    if last_run.get("error"):
        lines.append(f"- error: {one_line(str(last_run['error']), 200)}")
    answer = last_run.get("answer")
    if isinstance(answer, str) and answer:
        lines.append("")
        lines.append("Answer:")
        lines.append(fence("\n".join(answer.splitlines()[:12])))
    return "\n".join(lines)
