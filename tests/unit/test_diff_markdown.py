"""`agentv-lsp diff --format markdown`: the CI report (job summary, PR comment) of a real change.

Size-capped with the summary table first, every changed test listed, one collapsible section per
changed test (load-state changes, then the largest changes first), a line saying how many were left
out; rendered to HTML
by markdown-it-py (CommonMark with HTML, as GitHub renders it) and screenshot in headless Chromium
(AGENTV_DIFF_README_IMAGE=<png> saves the picture the README shows).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_diff import GitRepo, v4_suite, v4_test  # tests/unit is on sys.path (no package)

from agentv_lsp.diff.render import MARKDOWN_LIMIT, render_markdown

CSS = """
body { font: 14px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328;
       max-width: 980px; margin: 24px auto; padding: 0 16px; }
table { border-collapse: collapse; margin: 8px 0 16px; } th, td { border: 1px solid #d0d7de; padding: 4px 10px; }
th { background: #f6f8fa; } code { background: #eff1f3; padding: 1px 4px; border-radius: 4px; font-size: 85%; }
pre { background: #f6f8fa; padding: 10px; overflow: auto; font-size: 12px; line-height: 1.35; }
details { border: 1px solid #d0d7de; border-radius: 6px; padding: 6px 10px; margin: 6px 0; }
summary { cursor: pointer; }
"""


def _real_change(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "r")
    rubric = "Grade the answer against the criteria.\n\n{{ criteria }}\n\nAnswer:\n{{ output }}\n"
    review = [
        v4_test(f"review-{i}", f"Review the retry loop, part {i}", file="snippets/retry.py") for i in range(6)
    ]
    plain = [v4_test("greet", "Say hello"), v4_test("farewell", "Say goodbye")]
    repo.commit(
        {
            "evals/snippets/retry.py": "def retry(fn):\n    for _ in range(3):\n        try:\n            return fn()\n"
            "        except Exception:\n            pass\n",
            "evals/judges/rubric.md": rubric,
            "evals/review.eval.yaml": v4_suite(review, grader="judges/rubric.md"),
            "evals/chat.eval.yaml": v4_suite(plain),
        }
    )
    repo.write(
        {
            "evals/snippets/retry.py": "def retry(fn, attempts=3):\n    for _ in range(attempts):\n        try:\n"
            "            return fn()\n        except TimeoutError:\n            continue\n    raise RuntimeError('gave up')\n",
            "evals/chat.eval.yaml": v4_suite(
                [v4_test("greet", "Say hello politely"), "  - id: farewell\n    input: Bye\n"]
            ),
        }
    )
    return repo


def test_the_markdown_report_leads_with_the_summary_and_orders_the_sections(tmp_path: Path) -> None:
    report = _real_change(tmp_path).diff()
    text = render_markdown(report)
    assert text.index("| status | tests |") < text.index("<details>")
    sections = re.findall(r"<details><summary><code>([^<]*)</code> · <b>([^<]*)</b> · ([\w-]+)", text)
    changed = [t for t in report.tests if t.status != "unchanged"]
    assert len(sections) == len(changed) == 8
    assert sections[0][1:] == ("farewell", "now-skipped")  # load-state changes first
    sizes = [next(t.lines_changed for t in changed if t.id == s[1]) for s in sections[1:]]
    assert sizes == sorted(sizes, reverse=True)  # then the largest changes
    assert "evals/snippets/retry.py</code> changed: 6 tests' prompts changed" in text
    assert "left out" not in text


def test_the_report_stays_under_the_cap_and_says_how_many_were_left_out(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    long_question = "\n".join(f"line {n} of a long question" for n in range(200))
    tests = [v4_test(f"t{i}", long_question) for i in range(60)]
    repo.commit({"evals/x.eval.yaml": v4_suite(tests)})
    repo.write({"evals/x.eval.yaml": v4_suite([v4_test(f"t{i}", long_question.upper()) for i in range(60)])})
    text = render_markdown(repo.diff())
    assert len(text) <= MARKDOWN_LIMIT <= 65_536  # a PR comment; a job summary takes 1 MiB
    shown = text.count("<details>")
    left = re.search(r"details of (\d+) more changed tests are left out", text)
    assert left is not None and shown > 0 and shown + int(left.group(1)) == 60


def test_markdown_escapes_names_and_fences(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    evil = "@everyone <img src=x onerror=alert(1)> ```"
    repo.commit(
        {"evals/x.eval.yaml": v4_suite([f"  - id: {json.dumps(evil)}\n    criteria: ok\n    input: hi\n"])}
    )
    repo.write(
        {
            "evals/x.eval.yaml": v4_suite(
                [f'  - id: {json.dumps(evil)}\n    criteria: ok\n    input: "```\\n</details>"\n']
            )
        }
    )
    text = render_markdown(repo.diff())
    assert "<img" not in text and "@everyone" not in text
    fence = re.search(r"^(`{3,})diff$", text, re.M)
    assert fence is not None and len(fence.group(1)) > 3  # longer than the backticks inside
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("commonmark", {"html": True}).render(text)
    # the `</details>` of the prompt stays text inside its code block: one section, closed once
    assert html.count("<details>") == html.count("</details>") == 1
    assert "&lt;/details&gt;" in html


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Chromium is not installed")
def test_the_report_of_a_real_change_renders_in_a_browser(tmp_path: Path) -> None:
    markdown_it = pytest.importorskip("markdown_it")
    text = render_markdown(_real_change(tmp_path).diff())
    body = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(text)
    assert body.count("<details>") == 8 and "<table>" in body
    # the load-state change and the first prompt change opened, as a reviewer would
    body = body.replace("<details>", "<details open>", 2)
    page = tmp_path / "report.html"
    page.write_text(f"<!doctype html><meta charset=utf-8><style>{CSS}</style>{body}", encoding="utf-8")
    png = tmp_path / "report.png"
    subprocess.run(
        [
            "chromium",
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1000,1500",
            f"--screenshot={png}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 20_000  # a page with text, not a blank one
    target = os.environ.get("AGENTV_DIFF_README_IMAGE")
    if target:
        shutil.copyfile(png, target)
