"""`agentv-lsp preview` of a 4.x eval file, laid out for people."""

from __future__ import annotations

import json
from typing import Any, TextIO

from agentv_lsp.report import one_line, shown_path
from agentv_lsp.report.preview import Content, Style, indent, line, token_line, write_note


def render_preview_v4(
    result: dict[str, Any], described: str, mode: str, color: bool, out: TextIO, escape: bool = False
) -> None:
    """A readable layout of a 4.x preview object; `escape` as in `render_preview`."""
    s = Style(color)
    content = Content(escape, color)
    out.write(s(shown_path(str(result["file"])), "1") + "\n")
    out.write(s(f"judged as {line(described)}", "2") + "\n")
    for warning in result["warnings"]:
        out.write(s(line(warning), "33") + "\n")
    if result["load_error"]:
        out.write(s(f"error: {line(result['load_error'])}", "31") + "\n")
        return
    for skipped in result.get("skipped", []):
        name = skipped.get("id")
        if name is None:  # a test without an id: say where it is
            name = f"{skipped.get('file') or result['file']} tests[{skipped.get('index', '?')}]"
        out.write(s(f"skipped by the runtime: {line(name)}: {line(skipped.get('reason', ''))}", "33") + "\n")
    if not result["cases"]:
        out.write("(no test loads)\n")
    modes = ("lm", "agent") if mode == "both" else (mode,)
    for case in result["cases"]:
        out.write("\n" + s(f"━━ {line(case['id'])} ", "1;36") + "\n")
        if case.get("criteria"):
            out.write(s("── criteria", "1") + "\n" + indent(content(case["criteria"])) + "\n")
        for m in modes:
            block = case[m]
            if block.get("systemMessage") is not None:
                out.write(
                    s(f"── systemMessage [{m}]", "1") + "\n" + indent(content(block["systemMessage"])) + "\n"
                )
            out.write(s(f"── question [{m}]", "1") + "\n" + indent(content(block["question"])) + "\n")
            if block.get("chatPrompt") is not None:
                out.write(s(f"── chatPrompt [{m}]", "1") + "\n")
                for turn in block["chatPrompt"]:
                    text = turn.get("content")
                    shown = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
                    out.write(
                        s(f"  {line(turn.get('role'))}:", "35") + "\n" + indent(content(shown), 4) + "\n"
                    )
        if case.get("file_paths"):
            out.write(s("── files: ", "1") + ", ".join(one_line(p) for p in case["file_paths"]) + "\n")
        if case.get("reference_answer"):
            out.write(s("── reference answer", "1") + "\n" + indent(content(case["reference_answer"])) + "\n")
        judge = case.get("judge_prompt")
        if judge:
            out.write(s("── grader prompt (user)", "1") + "\n" + indent(content(judge["question"])) + "\n")
        if (tokens := token_line(case)) is not None:
            out.write(s(f"── {tokens}", "2") + "\n")
        if (last := _last_run_line(case)) is not None:
            out.write(s(f"── {line(last)}", "2") + "\n")
    write_note(content, s, out)


def _last_run_line(case: dict[str, Any]) -> str | None:
    from agentv_lsp.results import describe_last_run

    return describe_last_run(case.get("last_run"))
