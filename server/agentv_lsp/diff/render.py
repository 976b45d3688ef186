"""`agentv-lsp diff` output: text (people), json (tools), markdown (CI job summaries, PR comments).

Everything shown comes from untrusted files. Text: each line is escaped like `check` escapes
(`report.one_line`: control, bidi and invisible characters, CI command markers) and starts with
our own prefix. Markdown: names are HTML-escaped (and `@` too, so no one is mentioned), diffs go
in fences longer than any backtick run they hold, and the whole report stays under a size cap.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable

from agentv_lsp.diff.compare import LOAD_STATES, STATUS_ORDER, DiffReport, FileChange, TestChange, json_text
from agentv_lsp.engine.tokens import TOKENIZER
from agentv_lsp.report import one_line, shown_path

# A GitHub PR comment holds 65,536 characters; a job summary 1 MiB. The report fits both.
MARKDOWN_LIMIT = 65_000
_FIELD_DIFF_LIMIT = 6_000  # characters of one field's diff in one collapsible section
_TEST_DIFF_LIMIT = 10_000  # characters of all of one test's diffs: one test cannot take the report
_LINE_LIMIT = 1_000


def render_json(report: DiffReport) -> str:
    """`json.dumps(report.as_json(), ensure_ascii=False, indent=2)`, from the tests' texts
    written already where they were compared (`compare_pair`)."""
    tests = [t.json_text or t.json_text_at(2) for t in report.tests]
    files = [json_text(f.as_json(), 2) for f in report.files]
    return (
        '{\n  "tests": '
        + _json_list(tests)
        + ',\n  "files": '
        + _json_list(files)
        + ',\n  "summary": '
        + json_text(report.summary(), 1)
        + "\n}\n"
    )


def _json_list(items: list[str]) -> str:
    """A list one level down, of items written two levels down (as `json.dumps` lays it out)."""
    return "[\n    " + ",\n    ".join(items) + "\n  ]" if items else "[]"


# ---- text ----


def _n(value: int) -> str:
    return f"{value:,}"


def _delta(before: int, after: int) -> str:
    change = after - before
    return f"{_n(before)} -> {_n(after)}" + (f" ({change:+,})" if change else "")


def _token_parts(t: TestChange, delta: Callable[[int, int], str]) -> list[str]:
    """The candidate's and the grader's token change, each before -> after as `delta` writes it
    (a side without a count: new or gone)."""
    parts = []
    for kind in ("candidate", "grader"):
        b = (t.tokens_before or {}).get(kind)
        a = (t.tokens_after or {}).get(kind)
        if b is None and a is None:
            continue
        if b is None or a is None:
            parts.append(f"{kind} {_n(a or b or 0)}" + (" (new)" if b is None else " (gone)"))
        else:
            parts.append(f"{kind} {delta(b, a)}")
    return parts


def _token_change(t: TestChange) -> str:
    parts = _token_parts(t, _delta)
    return f"tokens ({TOKENIZER}) " + ", ".join(parts) if parts else ""


def plural(n: int, word: str) -> str:
    """`1 test`, `2 tests` (`word` is the singular)."""
    return f"{_n(n)} {word}" + ("" if n == 1 else "s")


def _tests_prompts(n: int) -> str:
    return f"{n} test's prompts" if n == 1 else f"{n:,} tests' prompts"


def _counts(counts: dict[str, int]) -> str:
    shown = [f"{counts[s]} {s}" for s in STATUS_ORDER if counts.get(s)]
    return ", ".join(shown) or "no tests"


def summary_line(report: DiffReport) -> str:
    s = report.summary()
    total = sum(s["tests"].values())
    tb, ta = s["tokens"]["before"], s["tokens"]["after"]
    return (
        f"{_counts(s['tests'])} (of {plural(total, 'test')} in {plural(s['files'], 'eval file')} previewed"
        f"{_not_previewed(report)}); tokens ({TOKENIZER}) of {s['tokens']['of']}: "
        f"candidate {_delta(tb['candidate'], ta['candidate'])}, grader {_delta(tb['grader'], ta['grader'])}"
    )


def _not_previewed(report: DiffReport) -> str:
    n = len(report.not_previewed)
    if not n:
        return ""
    return f"; {n} more eval file{'s' if n != 1 else ''} read no changed file (not previewed; --full does)"


def _test_title(t: TestChange) -> str:
    where = shown_path(t.file) + (f" (was {one_line(t.base_file)})" if t.base_file else "")
    return f"{t.status:<17} {where}  {one_line(t.id, 200)}"


def render_text(report: DiffReport, show_unchanged: bool = False) -> str:
    out = [f"agentv-lsp diff: {one_line(report.base_label)} -> {one_line(report.head_label)}"]
    for t in report.tests:
        if t.status == "unchanged" and not show_unchanged:
            continue
        line = _test_title(t)
        if t.fields:
            line += "  [" + ", ".join(f.title for f in t.fields) + "]"
        out.append(line)
        if t.note:
            out.append("    " + one_line(t.note, _LINE_LIMIT))
        tokens = _token_change(t)
        if tokens and t.status != "unchanged":
            out.append("    " + tokens)
        if t.causes:
            out.append("    because: " + ", ".join(one_line(_cause(report, c), 300) for c in t.causes))
        for f in t.fields:
            out.extend("    " + one_line(line, _LINE_LIMIT) for line in f.diff.splitlines())
    out.append("files:")
    for file_change in report.files:
        out.append("  " + _file_line(file_change))
    if report.causes:
        out.append("why:")
        for path, n in report.causes:
            out.append(f"  {one_line(path, 300)} {report.cause_kind(path)}: {_tests_prompts(n)} changed")
    out.append("summary: " + summary_line(report))
    return "\n".join(out) + "\n"


def _cause(report: DiffReport, cause: str) -> str:
    """A cause as the per-test line names it: a file added or removed says so."""
    kind = report.cause_kind(cause)
    return cause if kind == "changed" else f"{cause} ({kind})"


def _file_line(f: FileChange) -> str:
    name = one_line(f.file) + (f" (renamed from {one_line(f.base_file)})" if f.base_file else "")
    runtime = ""
    if f.runtime_before and f.runtime_after and f.runtime_before != f.runtime_after:
        runtime = f"; judged by AgentV {f.runtime_before} -> {f.runtime_after}"
    error = ""
    if f.load_error_after:
        error = f"; does not load: {one_line(f.load_error_after, 300)}"
    tb, ta = f.tokens_before, f.tokens_after
    counts = (
        f"; candidate tokens {_delta(tb['candidate'], ta['candidate'])}, grader {_delta(tb['grader'], ta['grader'])}"
        if f.counted
        else ""
    )
    return f"{name}: {f.status}; {_counts(f.counts)}{runtime}{error}{counts}"


# ---- markdown ----


def md_text(text: str, limit: int = 300) -> str:
    """Untrusted text inside markdown or HTML: one line, escaped, no markdown syntax, no mentions."""
    shown = html.escape(one_line(text, limit), quote=True)
    shown = re.sub(r"([\\`*_\[\]{}()#+!|~>])", r"\\\1", shown)
    return shown.replace("@", "&#64;")


def md_code(text: str, limit: int = 300) -> str:
    """A name in <code> (HTML: markdown does not apply inside)."""
    shown = html.escape(one_line(text, limit), quote=True).replace("@", "&#64;")
    return "<code>" + shown.replace("|", "&#124;") + "</code>"  # a `|` would split a table cell


def _fence(body: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    return "`" * max(3, longest + 1)


def _md_delta(before: int, after: int) -> str:
    change = after - before
    return f"{_n(before)} → {_n(after)}" + (f" ({change:+,})" if change else "")


def render_markdown(report: DiffReport, limit: int = MARKDOWN_LIMIT) -> str:
    """The summary, the causes, then EVERY test whose status or prompt changed (one row each:
    id, file, fields, token change; grouped per eval file when long), then the details of as
    many as fit (load-state changes, then the largest), each capped, all within `limit`."""
    s = report.summary()
    total = sum(s["tests"].values())
    tb, ta = s["tokens"]["before"], s["tokens"]["after"]
    head = [
        f"## AgentV prompt diff: {md_code(report.base_label)} → {md_code(report.head_label)}",
        "",
        f"**{md_text(_counts({k: v for k, v in s['tests'].items() if k != 'unchanged'}) if report.prompts_changed else 'No prompt changed')}** "
        f"of {plural(total, 'test')} in {plural(s['files'], 'eval file')} previewed{md_text(_not_previewed(report))}. "
        f"Tokens ({TOKENIZER}, text only) of {s['tokens']['of']}: "
        f"candidate {_md_delta(tb['candidate'], ta['candidate'])}, grader {_md_delta(tb['grader'], ta['grader'])}.",
        "",
        "| status | tests |",
        "|---|---:|",
        *[f"| {status} | {_n(s['tests'][status])} |" for status in STATUS_ORDER if s["tests"].get(status)],
        "",
    ]
    if report.causes:
        head.append("**Why:**")
        head.append("")
        for path, n in report.causes[:30]:
            head.append(f"- {md_code(path)} {report.cause_kind(path)}: {_tests_prompts(n)} changed")
        if len(report.causes) > 30:
            head.append(f"- … and {len(report.causes) - 30} more files")
        head.append("")
    text = "\n".join(head) + "\n"
    shown = [t for t in report.tests if t.status != "unchanged"]
    reserve = 400  # room for the closing lines
    text += _md_listing(report, shown, limit - len(text) - reserve)
    # then the details: load-state changes first, then the largest changes
    shown.sort(key=lambda t: (t.status not in LOAD_STATES, -t.lines_changed, t.file, t.id))
    left_out = 0
    for index, t in enumerate(shown):
        section = _md_section(t, report)
        if len(text) + len(section) + reserve > limit:
            left_out = len(shown) - index
            break
        text += section
    if left_out:
        text += (
            f"\n_The details of {left_out} more changed test{'s' if left_out != 1 else ''} are left out to keep "
            f"this report under {_n(limit)} characters; `agentv-lsp diff --format json` has them all._\n"
        )
    return text


_LISTED_FLAT = 30  # changed tests listed in one table; more are grouped per eval file


def _md_listing(report: DiffReport, shown: list[TestChange], budget: int) -> str:
    """Every changed test, one row each; as ids per file when the rows do not fit `budget`, and
    cut with a count (JSON lists them) only when even those do not."""
    if not shown:
        return ""
    by_file: dict[str, list[TestChange]] = {}
    for t in shown:
        by_file.setdefault(t.file, []).append(t)
    files = {f.file: f for f in report.files}
    if len(shown) <= _LISTED_FLAT:
        rows = [
            "**Changed tests:**",
            "",
            "| test | eval file | status | fields | tokens |",
            "|---|---|---|---|---|",
        ]
        rows += [
            f"| {_md_id(t)} | {_md_file(t)} | {t.status} | {_md_fields(t)} | {_md_tokens(t)} |" for t in shown
        ]
    else:
        rows = ["**Changed tests** (by eval file):"]
        for name, tests in by_file.items():
            rows += [
                "",
                _md_file_heading(files.get(name), tests[0]),
                "",
                "| test | status | fields | tokens |",
                "|---|---|---|---|",
            ]
            rows += [f"| {_md_id(t)} | {t.status} | {_md_fields(t)} | {_md_tokens(t)} |" for t in tests]
    listing = "\n".join(rows) + "\n\n"
    if len(listing) <= budget:
        return listing
    # compact: per file, the ids (status when it is not "changed"), comma-separated
    lines = ["**Changed tests** (by eval file; fields and tokens in the details below and in the JSON):", ""]
    used = sum(len(line) + 1 for line in lines)
    listed = 0
    for name, tests in by_file.items():
        ids = ", ".join(_md_id(t) + ("" if t.status == "changed" else f" ({t.status})") for t in tests)
        line = f"- {_md_file_heading(files.get(name), tests[0])}: {ids}"
        if used + len(line) + 1 > budget - 200:
            break
        lines.append(line)
        used += len(line) + 1
        listed += len(tests)
    if listed < len(shown):
        more = len(shown) - listed
        lines.append(
            f"- … {plural(more, 'more changed test')}: `agentv-lsp diff --format json` lists every one"
        )
    return "\n".join(lines) + "\n\n"


def _md_id(t: TestChange) -> str:
    return (
        "<b>"
        + html.escape(one_line(t.id, 200), quote=True).replace("@", "&#64;").replace("|", "&#124;")
        + "</b>"
    )


def _md_file(t: TestChange) -> str:
    return md_code(t.file) + (f" (was {md_code(t.base_file)})" if t.base_file else "")


def _md_file_heading(f: FileChange | None, first: TestChange) -> str:
    heading = _md_file(first)
    if f is not None:
        heading += f" · {md_text(_counts(f.counts))}"
        if f.counted:
            heading += (
                f" · candidate tokens {_md_delta(f.tokens_before['candidate'], f.tokens_after['candidate'])}, "
                f"grader {_md_delta(f.tokens_before['grader'], f.tokens_after['grader'])}"
            )
    return heading


def _md_fields(t: TestChange) -> str:
    return html.escape(", ".join(f.title for f in t.fields)) or "—"


def _md_tokens(t: TestChange) -> str:
    """The token change in a table cell: the candidate's and the grader's, before → after."""
    return ", ".join(_token_parts(t, _md_delta)) or "—"


def _md_section(t: TestChange, report: DiffReport) -> str:
    fields = ", ".join(f.title for f in t.fields)
    tokens = _token_change(t).replace(" -> ", " → ")
    summary = (
        f"{md_code(t.file)} · <b>{html.escape(one_line(t.id, 200)).replace('@', '&#64;')}</b> · {t.status}"
    )
    if fields:
        summary += f" · {html.escape(fields)}"
    if t.lines_changed and t.fields:
        summary += f" · {t.lines_changed} lines"
    parts = [f"<details><summary>{summary}</summary>", ""]
    if tokens:
        parts.append(f"{md_text(tokens)}  ")
    if t.causes:
        parts.append(
            "because: "
            + ", ".join(
                md_code(c) + ("" if report.cause_kind(c) == "changed" else f" ({report.cause_kind(c)})")
                for c in t.causes
            )
            + "  "
        )
    if t.note:
        parts.append(md_text(t.note, 600))
    parts.append("")
    room = _TEST_DIFF_LIMIT
    for index, f in enumerate(t.fields):
        if room < 200:
            left = len(t.fields) - index
            parts += [f"_… the diffs of {plural(left, 'more field')} left out (the JSON has them)._", ""]
            break
        lines = _cut(f.diff.splitlines(), min(_FIELD_DIFF_LIMIT, room))
        body = "\n".join(one_line(line, _LINE_LIMIT) for line in lines)
        room -= len(body)
        fence = _fence(body)
        parts += [f"{fence}diff", body, fence, ""]
    parts += ["</details>", ""]
    return "\n".join(parts) + "\n"


def _cut(lines: Iterable[str], limit: int) -> list[str]:
    out: list[str] = []
    used = 0
    all_lines = list(lines)
    for i, line in enumerate(all_lines):
        if used + len(line) > limit:
            out.append(f"… {len(all_lines) - i} more lines of this diff")
            break
        out.append(line)
        used += len(line) + 1
    return out


def render(report: DiffReport, fmt: str, show_unchanged: bool = False) -> str:
    if fmt == "text":
        return render_text(report, show_unchanged)
    return render_json(report) if fmt == "json" else render_markdown(report)
