"""`agentv-lsp preview` of a v2 eval file, laid out for people."""

from __future__ import annotations

from typing import Any, TextIO

from agentv_lsp.report import one_line, shown_path
from agentv_lsp.report.preview import Content, Style, indent, line, token_line, write_note


def render_preview(result: dict[str, Any], mode: str, color: bool, out: TextIO, escape: bool = False) -> None:
    """A readable layout of the preview object; `escape`: show control and invisible
    characters in the content escaped (on a terminal; see `Content`)."""
    s = Style(color)
    content = Content(escape, color)
    out.write(s(shown_path(str(result["file"])), "1") + "\n")
    if "runtime" in result:
        out.write(
            s(f"judged as AgentV {result['runtime']} ({line(result.get('runtime_reason', ''))})", "2") + "\n"
        )
    for warning in result["warnings"]:
        out.write(s(line(warning), "33") + "\n")
    if result["load_error"]:
        out.write(s(f"error: {line(result['load_error'])}", "31") + "\n")
        return
    if not result["cases"]:
        out.write("(no eval cases load)\n")
    modes = ("lm", "agent") if mode == "both" else (mode,)
    for case in result["cases"]:
        out.write(
            "\n"
            + s(f"━━ {line(case['id'])} ", "1;36")
            + s(f"(expected outcome: {line(case['expected_outcome'])})", "2")
            + "\n"
        )
        for m in modes:
            block = case[m]
            out.write(s(f"── question [{m}]", "1") + "\n")
            out.write(indent(content(block["question"])) + "\n")
            if block["chatPrompt"] is not None:
                out.write(s(f"── chatPrompt [{m}]", "1") + "\n")
                for turn in block["chatPrompt"]:
                    out.write(
                        s(f"  {line(turn['role'])}:", "35")
                        + "\n"
                        + indent(content(turn["content"]), 4)
                        + "\n"
                    )
            else:
                out.write(
                    s(
                        f"── chatPrompt [{m}]: none (flat question; "
                        "the provider adds its default system prompt)",
                        "2",
                    )
                    + "\n"
                )
        if case["lm"]["guidelines"]:
            out.write(s("── guidelines", "1") + "\n" + indent(content(case["lm"]["guidelines"])) + "\n")
        if case["file_paths"]:
            out.write(s("── files: ", "1") + ", ".join(one_line(p) for p in case["file_paths"]) + "\n")
        if case["reference_answer"]:
            out.write(s("── reference answer", "1") + "\n" + indent(content(case["reference_answer"])) + "\n")
        if case["judge_prompt"] is not None:
            out.write(
                s("── judge prompt (user)", "1")
                + "\n"
                + indent(content(case["judge_prompt"]["question"]))
                + "\n"
            )
        if (tokens := token_line(case)) is not None:
            out.write(s(f"── {tokens}", "2") + "\n")
    write_note(content, s, out)
