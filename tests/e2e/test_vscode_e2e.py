"""End-to-end: the packaged extension in code-server, driven by Chromium through Playwright.

A copy of examples/ (or a small generated eval repository while examples/ is empty) gets one extra eval
file with a deliberate error (role `usr`). The test then checks what a user sees: the squiggle and its
Problems entry, the hover on a case id with the question text, the "Preview" code lens opening the
preview panel with the chat prompt as bubbles (escaped, not rendered as HTML), and the panel following
the cursor to the next case. A second test does the same for an AgentV 4.x suite (`*.eval.yaml`,
`tests:`), comparing what the editor shows with `agentv-lsp preview/check` on the same workspace.
Screenshots go to tests/e2e/artifacts/. Cold start to first diagnostic is
printed and saved in artifacts/timings.json.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import FrameLocator, Locator, Page

# The code_server_factory fixture (conftest.py): (workspace, settings=None, env=None) -> CodeServer
Factory = Callable[..., Any]

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

SMOKE_FILE = "e2e-smoke.yaml"
QUESTION_MARKER = "E2E-MARKER: What is the capital of France?"
INJECTION = "<img src=x onerror=alert(1)><b>not bold</b>"

SMOKE_YAML = f"""\
$schema: agentv-eval-v2
description: Smoke-test eval file written by tests/e2e (the second case has a misspelt role).

evalcases:
  - id: capital-question
    outcome: The assistant answers Paris.
    input_messages:
      - role: system
        content: |-
          You are a geography tutor. {INJECTION}
      - role: user
        content: "{QUESTION_MARKER}"
    expected_messages:
      - role: assistant
        content: Paris.

  - id: broken-role
    outcome: The assistant greets the user.
    input_messages:
      - role: usr
        content: Hello there, who are you?
"""

FALLBACK_CONFIG = """\
$schema: agentv-config-v2
guideline_patterns:
  - "**/*.instructions.md"
"""

# Everything waits at most this long for one thing to appear.
STEP_MS = 60_000


def make_workspace(dst: Path) -> Path:
    examples = REPO / "examples"
    if (examples / ".agentv" / "config.yaml").exists():
        shutil.copytree(examples, dst, ignore=shutil.ignore_patterns(".vscode", "__pycache__"))
    else:
        (dst / ".agentv").mkdir(parents=True)
        (dst / ".agentv" / "config.yaml").write_text(FALLBACK_CONFIG)
    (dst / "evals").mkdir(exist_ok=True)
    (dst / "evals" / SMOKE_FILE).write_text(SMOKE_YAML)
    return dst


def shot(page: Page, name: str, readme: str | None = None, around: Locator | None = None) -> None:
    """Saves a screenshot to artifacts/. With AGENTV_E2E_README_IMAGES=<dir> (used to refresh
    vscode-client/images/), also saves `readme` there, cropped to `around` plus a margin."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))
    out_dir = os.environ.get("AGENTV_E2E_README_IMAGES")
    if not (out_dir and readme):
        return
    clip: Any = None
    box = around.bounding_box() if around is not None else None
    if box:
        vp = page.viewport_size or {"width": 1400, "height": 860}
        x0, y0 = max(0, box["x"] - 360), max(0, box["y"] - 24)
        x1 = min(vp["width"], box["x"] + box["width"] + 40)
        y1 = min(vp["height"], box["y"] + box["height"] + 240)
        clip = {"x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0}
    target = Path(out_dir) / readme
    target.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target), clip=clip)
    if shutil.which("pngquant"):  # optional: keep README images small
        subprocess.run(
            ["pngquant", "--force", "--skip-if-larger", "--output", str(target), "--", str(target)]
        )


def open_file(page: Page, name: str, tab: str | None = None) -> None:
    """Opens a workspace file through Quick Open (Ctrl+P); `tab`: its tab's text when `name` is a path."""
    page.locator(".monaco-workbench").wait_for(timeout=STEP_MS)
    # The explorer has loaded the folder once a row shows up.
    page.locator(".explorer-folders-view .monaco-list-row").first.wait_for(timeout=STEP_MS)
    page.keyboard.press("Control+P")
    box = page.locator(".quick-input-widget input")
    box.wait_for(timeout=STEP_MS)
    box.fill(name)
    page.locator(".quick-input-list .monaco-list-row", has_text=tab or name).first.wait_for(timeout=STEP_MS)
    page.keyboard.press("Enter")
    page.locator(".tab.active", has_text=tab or name).wait_for(timeout=STEP_MS)


def token(page: Page, text: str) -> Locator:
    """The editor token whose text is exactly `text`."""
    return page.locator(
        ".monaco-editor .view-line span span", has_text=re.compile(rf"^{re.escape(text)}$")
    ).first


def hover_over(page: Page, target: Locator, text: str, attempts: int = 4) -> Locator:
    """Moves the mouse onto `target` until a hover containing `text` shows (a hover can be lost
    when the mouse arrives while the editor is still busy, e.g. just after a file opened)."""
    target.wait_for(timeout=STEP_MS)
    hover = page.locator(".monaco-hover:not(.hidden)", has_text=text).first
    for attempt in range(attempts):
        bb = target.bounding_box()
        assert bb
        page.mouse.move(bb["x"] + bb["width"] / 2, bb["y"] + bb["height"] / 2)
        try:
            hover.wait_for(timeout=15_000)
            return hover
        except Exception:
            if attempt == attempts - 1:
                raise
            page.mouse.move(5, 5)
            page.keyboard.press("Escape")
            time.sleep(0.5)
    return hover


def webview_frame(page: Page) -> FrameLocator:
    """code-server puts a webview in iframe.webview, whose content is in an inner #active-frame."""
    return page.frame_locator("iframe.webview.ready").frame_locator("#active-frame")


def preview_by_first_lens(page: Page, heading: str) -> FrameLocator:
    """Clicks the first "Preview" code lens until the preview shows `heading`. On a loaded CI
    machine a click just after a hover closes can land before the editor takes it, and the panel
    never opens (seen once); a second click opens it. The preview must still show `heading`."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    frame = webview_frame(page)
    lens = page.locator(".monaco-editor .codelens-decoration a", has_text="Preview").first
    for _attempt in range(3):
        lens.click()
        try:
            frame.locator("h1", has_text=heading).wait_for(timeout=STEP_MS // 3)
            return frame
        except PlaywrightTimeout:
            continue
    frame.locator("h1", has_text=heading).wait_for(timeout=STEP_MS)
    return frame


README_FILE, README_CASE = "code-review.eval.yaml", "bare-except-follow-up"


def readme_images(page: Page, frame: FrameLocator) -> None:
    """Hover and preview pictures for vscode-client/README.md, from the examples/ eval file."""
    if not (REPO / "examples" / "evals" / README_FILE).exists():
        return
    page.keyboard.press("Escape")
    page.keyboard.press("Control+1")  # open the file in the editor group, not over the preview
    open_file(page, README_FILE)
    case_id = token(page, README_CASE)
    hover = hover_over(page, case_id, "senior Python reviewer")
    time.sleep(0.3)
    shot(page, "05-readme-hover.png", readme="hover.png", around=hover)
    page.mouse.move(5, 5)
    page.keyboard.press("Escape")
    case_id.click()
    frame.locator("h1", has_text=README_CASE).wait_for(timeout=STEP_MS)
    frame.locator("button.tab[data-mode='lm']").click()
    frame.locator("article[data-mode='lm'] .bubble").first.wait_for(timeout=STEP_MS)
    frame.locator("[data-section=chat]").evaluate("e => e.scrollIntoView()")  # show the bubbles
    time.sleep(0.5)
    shot(page, "06-readme-preview.png", readme="preview.png")


def test_diagnostics_hover_preview(tmp_path: Path, chromium: str, code_server_factory: Factory) -> None:
    from playwright.sync_api import sync_playwright

    workspace = make_workspace(tmp_path / "ws")
    cs = code_server_factory(workspace)
    timings: dict[str, float] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, env=cs.env, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 860})
        page.set_default_timeout(STEP_MS)
        try:
            t_goto = time.monotonic()
            page.goto(cs.url, timeout=STEP_MS)
            open_file(page, SMOKE_FILE)

            # 1. Diagnostic squiggle on the misspelt role, and its Problems entry.
            squiggle = page.locator(".monaco-editor .squiggly-error, .monaco-editor .squiggly-warning").first
            squiggle.wait_for(timeout=STEP_MS)
            now = time.monotonic()
            timings["cold_start_to_first_diagnostic_s"] = round(now - cs.started_at, 2)
            timings["page_load_to_first_diagnostic_s"] = round(now - t_goto, 2)
            print(
                f"\ncold start to first diagnostic: {timings['cold_start_to_first_diagnostic_s']:.1f}s "
                f"(vsix install + code-server start + workbench + server); "
                f"from page.goto: {timings['page_load_to_first_diagnostic_s']:.1f}s"
            )
            page.keyboard.press("Control+Shift+M")
            problem = page.locator(".markers-panel .monaco-list-row", has_text="usr").first
            problem.wait_for(timeout=STEP_MS)
            assert "usr" in problem.inner_text()
            shot(page, "01-diagnostics.png", readme="diagnostics.png")
            page.keyboard.press("Control+Shift+M")  # hide the panel again

            # 1b. The language status item names the schema in use.
            lang_status = page.locator("#status\\.languageStatus")
            lang_status.wait_for(timeout=STEP_MS)
            lang_status.hover()
            page.locator(".monaco-hover:not(.hidden)", has_text="AgentV agentv-eval-v2").first.wait_for(
                timeout=STEP_MS
            )
            shot(page, "01b-language-status.png")
            page.mouse.move(5, 5)
            page.keyboard.press("Escape")

            # 2. Hover on a case id shows the exact question.
            case_id = token(page, "capital-question")
            hover = hover_over(page, case_id, "E2E-MARKER")
            assert QUESTION_MARKER in hover.inner_text()
            shot(page, "02-hover.png")
            page.mouse.move(5, 5)
            page.keyboard.press("Escape")

            # 3. The server's "Preview" code lens opens the preview panel with the chat prompt.
            lens = page.locator(".monaco-editor .codelens-decoration a", has_text="Preview").first
            lens.wait_for(timeout=STEP_MS)
            lens.click()
            frame = webview_frame(page)
            user_bubble = frame.locator(".bubble.role-user", has_text="E2E-MARKER")
            user_bubble.wait_for(timeout=STEP_MS)
            assert QUESTION_MARKER in user_bubble.inner_text()
            system_bubble = frame.locator(".bubble.role-system").first
            # Eval content is shown as text, never interpreted as HTML.
            assert "<img src=x" in system_bubble.inner_text()
            assert frame.locator("img").count() == 0
            assert frame.locator(".bubble b").count() == 0
            assert frame.locator("h1").inner_text() == "capital-question"
            time.sleep(0.5)
            shot(page, "03-preview.png")

            # 4. The panel refreshes as the user types in the case.
            # (Monaco renders spaces as U+00A0, so match a one-word token: the first outcome key.)
            token(page, "outcome").click()
            page.keyboard.press("End")
            page.keyboard.type(" Typed-E2E")
            frame.locator("[data-section=expected] pre", has_text="Typed-E2E").wait_for(timeout=STEP_MS)

            # 5. The panel follows the cursor into the next case.
            other = token(page, "broken-role")
            other.click()
            frame.locator("h1", has_text="broken-role").wait_for(timeout=STEP_MS)
            # Agent mode tab switches the rendered prompt.
            frame.locator("button.tab[data-mode='agent']").click()
            frame.locator("article[data-mode='agent']").wait_for(timeout=STEP_MS)
            shot(page, "04-preview-follow.png")
            if os.environ.get("AGENTV_E2E_README_IMAGES"):
                readme_images(page, frame)
        except Exception:
            try:
                shot(page, "failure.png")
            finally:
                print(cs.exthost_logs())
            raise
        finally:
            browser.close()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "timings.json").write_text(json.dumps(timings, indent=2) + "\n")


V4_FILE = "e2e-smoke-v4.eval.yaml"
V4_NOTES = "e2e-v4-notes.md"
V4_MARKER = "E2E-V4-MARKER"

# An AgentV 4.x suite (`*.eval.yaml`, `tests:`): a suite-level system input prepended to every test,
# a test with a file segment (graded by a deterministic assertion), one graded by the default LLM
# grader (criteria only, so it has a grader prompt), one whose only message has the misspelt role `usr` (the runtime drops
# the message and skips the test) and one with nothing to grade it by (skipped: "Skipping incomplete
# test").
V4_YAML = f"""\
description: Smoke-test AgentV 4.x suite written by tests/e2e.

input:
  - role: system
    content: You are an E2E-V4 geography tutor. {INJECTION}

tests:
  - id: v4-capital
    criteria: E2E-V4-CRITERIA the answer names Paris.
    input:
      - role: user
        content:
          - type: text
            value: "{V4_MARKER}: What is the capital of France? Use the notes."
          - type: file
            value: ./snippets/{V4_NOTES}
    expected_output: Paris.
    assertions:
      - name: says-paris
        type: contains
        value: Paris

  - id: v4-graded
    criteria: E2E-V4-GRADER the answer names Lyon.
    input: Which French city is famous for silk?

  - id: v4-broken-role
    criteria: The assistant greets the user.
    input:
      - role: usr
        content: Hello there, who are you?

  - id: v4-incomplete
    input: This test has nothing to grade it with.
"""


def write_v4_suite(workspace: Path) -> Path:
    evals = workspace / "evals"
    (evals / "snippets").mkdir(parents=True, exist_ok=True)
    (evals / "snippets" / V4_NOTES).write_text("Paris lies on the Seine.\n")
    target = evals / V4_FILE
    target.write_text(V4_YAML)
    return target


def agentv_cli(workspace: Path, *args: str) -> Any:
    """What `agentv-lsp` itself says about a workspace file (the interpreter the extension runs the
    server with), as JSON: the expected values of the UI checks come from here, never typed in."""
    python = os.environ.get("AGENTV_E2E_PYTHON", sys.executable)
    proc = subprocess.run(
        [python, "-m", "agentv_lsp", *args],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.stdout.strip(), f"agentv-lsp {' '.join(args)} printed nothing:\n{proc.stderr[-3000:]}"
    return json.loads(proc.stdout)


def flat(text: str) -> str:
    """Whitespace-insensitive text: a hover renders code blocks line by line, with U+00A0 for spaces."""
    return " ".join(text.replace("\u00a0", " ").split())


def problem_row(page: Page, diagnostic: dict[str, Any]) -> Locator:
    """The Problems row of a diagnostic: its message's start and its `[Ln L, Col C]` position."""
    start = diagnostic["range"]["start"]
    where = f"[Ln {start['line'] + 1}, Col {start['character'] + 1}]"
    head = flat(diagnostic["message"])[:60]
    return page.locator(".markers-panel .monaco-list-row").filter(has_text=head).filter(has_text=where).first


def test_agentv4_diagnostics_hover_preview(
    tmp_path: Path, chromium: str, code_server_factory: Factory
) -> None:
    """An AgentV 4.x file next to the v2 ones: its diagnostics, the hover with the exact question,
    the Preview lens and panel (system message, criteria, question in both modes, expected output,
    assertions, grader prompt, runtime badge) and the status item all
    show what `agentv-lsp preview/check` report for the same workspace."""
    from playwright.sync_api import sync_playwright

    workspace = make_workspace(tmp_path / "ws")
    suite = write_v4_suite(workspace)
    rel = suite.relative_to(workspace).as_posix()
    # a committed repository: "Compare prompt with HEAD" on an unchanged test
    from tests.conftest import GIT_ENV

    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "e2e"]):
        subprocess.run(["git", *args], cwd=workspace, env=GIT_ENV, check=True, capture_output=True)
    preview = agentv_cli(workspace, "preview", rel, "--json", "--repo-root", str(workspace))
    check = agentv_cli(workspace, "check", rel, "--format", "json")
    runtime = preview["runtime"]
    assert runtime.startswith("4."), preview  # the file is judged as AgentV 4.x, not v2
    capital = next(c for c in preview["cases"] if c["id"] == "v4-capital")
    question = capital["lm"]["question"]
    graded = next(c for c in preview["cases"] if c["id"] == "v4-graded")
    assert graded["judge_prompt"] and "E2E-V4-GRADER" in graded["judge_prompt"]["question"], graded
    assert V4_MARKER in question and capital["lm"]["systemMessage"], capital
    skipped = {s["id"]: s for s in preview["skipped"]}
    assert set(skipped) == {"v4-broken-role", "v4-incomplete"}, preview["skipped"]
    diagnostics = [d for d in check["diagnostics"] if d["file"] == rel]
    role_error = next(d for d in diagnostics if d["severity"] == "error" and "usr" in d["message"])
    skip_warning = next(
        d
        for d in diagnostics
        if d["severity"] == "warning" and "Skipping incomplete test: v4-incomplete" in d["message"]
    )

    cs = code_server_factory(workspace)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, env=cs.env, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 860})
        page.set_default_timeout(STEP_MS)
        try:
            page.goto(cs.url, timeout=STEP_MS)
            open_file(page, V4_FILE)

            # 1. The error squiggle (role `usr`) and both Problems entries, with the CLI's messages
            # at the CLI's positions: the invalid role and the runtime's "Skipping incomplete test".
            page.locator(".monaco-editor .squiggly-error").first.wait_for(timeout=STEP_MS)
            page.locator(".monaco-editor .squiggly-warning").first.wait_for(timeout=STEP_MS)
            page.keyboard.press("Control+Shift+M")
            problem_row(page, role_error).wait_for(timeout=STEP_MS)
            problem_row(page, skip_warning).wait_for(timeout=STEP_MS)
            shot(page, "11-v4-diagnostics.png")
            page.keyboard.press("Control+Shift+M")

            # 2. The language status item names the runtime that judges the file.
            lang_status = page.locator("#status\\.languageStatus")
            lang_status.wait_for(timeout=STEP_MS)
            lang_status.hover()
            page.locator(".monaco-hover:not(.hidden)", has_text=f"AgentV {runtime}").first.wait_for(
                timeout=STEP_MS
            )
            shot(page, "12-v4-language-status.png")
            page.mouse.move(5, 5)
            page.keyboard.press("Escape")

            # 3. Hover on a test id: first what a glance needs (issue 36: it runs, the token counts,
            # the turns, the files, the preview a click away), then each prompt text once: the
            # chatPrompt turns (suite system input, user text + file), not the flat question again.
            # The counts come from a counter that never holds the hover up: "tokens: counting…"
            # until they are known, then the counts on the next hover.
            for _attempt in range(20):
                hover = hover_over(page, token(page, "v4-capital"), V4_MARKER)
                first_lines = [flat(line) for line in hover.inner_text().split("\n") if line.strip()][:2]
                if "tokens: counting…" not in first_lines[0]:
                    break
                page.mouse.move(5, 5)
                page.keyboard.press("Escape")
                time.sleep(1)
            shown = flat(hover.inner_text())
            turns = capital["lm"]["chatPrompt"]
            assert first_lines[0].startswith(f"v4-capital · runs in AgentV {runtime} · "), first_lines
            candidate = capital["tokens"]["candidate"]
            assert f"{candidate:,} tokens to the candidate" in first_lines[0], first_lines
            assert f"· {len(turns)} turns · 1 file: {V4_NOTES}" in first_lines[0], first_lines
            assert first_lines[1] == "Open in the preview panel", first_lines
            for turn in turns:
                assert flat(turn["content"]) in shown, f"hover:\n{shown}\nexpected turn:\n{turn['content']}"
            assert flat(question) not in shown  # the turns with role markers: not said twice
            box = hover.bounding_box()
            assert box and box["height"] < 700, box
            shot(page, "13-v4-hover.png")
            page.mouse.move(5, 5)
            page.keyboard.press("Escape")
            # On a diagnostic's range the diagnostic comes first and ours is the glance alone.
            on_error = hover_over(page, token(page, "usr"), "v4-broken-role")
            flagged = flat(on_error.inner_text())
            assert "usr" in flagged and "Open in the preview panel" in flagged, flagged
            assert "Turns" not in flagged and "Question" not in flagged, flagged
            assert flagged.index("usr") < flagged.index("v4-broken-role"), flagged
            shot(page, "13b-v4-hover-on-diagnostic.png")
            page.mouse.move(5, 5)
            page.keyboard.press("Escape")

            # 3b. Compare prompt with HEAD on the unchanged test: both sides the same text (no
            # change counted), the revision names in the tab title (issue 36).
            compare = page.locator(".monaco-editor .codelens-decoration a", has_text="Compare prompt with HEAD")
            compare.first.click()
            diff_tab = page.locator(".tab.active", has_text="HEAD (").first
            diff_tab.wait_for(timeout=STEP_MS)
            assert "unsaved buffer" in diff_tab.inner_text() + (diff_tab.get_attribute("title") or ""), (
                diff_tab.inner_text()
            )
            diff = page.locator(".monaco-diff-editor").first
            diff.locator(".view-line", has_text=V4_MARKER).first.wait_for(timeout=STEP_MS)
            time.sleep(1)  # the diff is computed once both sides are in
            changed = diff.locator(".line-insert, .line-delete, .char-insert, .char-delete")
            assert changed.count() == 0, changed.count()
            shot(page, "14a-compare-unchanged.png")
            run_command(page, "View: Close All Editors")
            open_file(page, V4_FILE)

            # 4. Lenses: "Preview" on the loaded test, the skip reason on the skipped one.
            lenses = page.locator(".monaco-editor .codelens-decoration")
            lenses.filter(has_text=skipped["v4-incomplete"]["reason"][:40]).first.wait_for(timeout=STEP_MS)
            lens = page.locator(".monaco-editor .codelens-decoration a", has_text="Preview").first
            lens.wait_for(timeout=STEP_MS)
            lens.click()

            # 5. The panel: runtime badge, criteria, system message, the question, chat bubbles,
            # expected output, assertions and the file, each as the CLI computed it.
            frame = webview_frame(page)
            frame.locator("h1", has_text="v4-capital").wait_for(timeout=STEP_MS)
            assert frame.locator("h1").inner_text() == "v4-capital"
            assert frame.locator(".badge.runtime").inner_text() == f"AgentV {runtime}"
            assert frame.locator("[data-section=criteria] pre").inner_text() == capital["criteria"]
            assert frame.locator("[data-section=system] pre").inner_text() == capital["lm"]["systemMessage"]
            assert frame.locator("[data-section=question] pre").inner_text() == question
            bubbles = frame.locator("[data-section=chat] .bubble")
            assert [b.get_attribute("data-role") for b in bubbles.all()] == [
                m["role"] for m in capital["lm"]["chatPrompt"]
            ]
            assert [b.locator("pre").inner_text() for b in bubbles.all()] == [
                m["content"] for m in capital["lm"]["chatPrompt"]
            ]
            expected_text = frame.locator("[data-section=expected-output] pre").inner_text()
            for m in capital["expected_output"]:
                assert m["content"] in expected_text
            assertions = json.loads(frame.locator("[data-section=assertions] pre").inner_text())
            assert assertions == capital["assertions"]
            files = frame.locator("[data-section=file-paths] a").all_inner_texts()
            assert files == capital["file_paths"]
            # Eval content is text, never HTML.
            assert frame.locator("img").count() == 0
            assert frame.locator("pre b").count() == 0
            time.sleep(0.5)
            shot(page, "14-v4-preview.png")
            # Agent mode: the file is referenced by its absolute path instead of inlined.
            frame.locator("button.tab[data-mode='agent']").click()
            frame.locator("article[data-mode='agent']").wait_for(timeout=STEP_MS)
            assert frame.locator("[data-section=question] pre").inner_text() == capital["agent"]["question"]
            frame.locator("button.tab[data-mode='lm']").click()
            frame.locator("article[data-mode='lm']").wait_for(timeout=STEP_MS)

            # 6. A criteria-only test: the default LLM grader's prompt, as the CLI assembled it.
            token(page, "v4-graded").click()
            frame.locator("h1", has_text="v4-graded").wait_for(timeout=STEP_MS)
            grader = graded["judge_prompt"]
            assert frame.locator("[data-section=judge] h2").first.text_content() == "Grader prompt"
            assert frame.locator("[data-section=judge-question] pre").inner_text() == grader["question"]
            assert frame.locator("[data-section=judge-system] pre").inner_text() == grader["systemPrompt"]
            assert frame.locator("[data-section=criteria] pre").inner_text() == graded["criteria"]
            frame.locator("[data-section=judge]").evaluate("e => e.scrollIntoView()")
            time.sleep(0.3)
            shot(page, "15-v4-preview-grader.png")

            # 7. The panel follows the cursor to the skipped test and says why AgentV skips it.
            token(page, "v4-incomplete").click()
            frame.locator("h1", has_text="v4-incomplete").wait_for(timeout=STEP_MS)
            reason = frame.locator("[data-section=error]").inner_text()
            assert skipped["v4-incomplete"]["reason"] in reason
            frame.locator("[data-section=warnings]", has_text="Skipping incomplete test").wait_for(
                timeout=STEP_MS
            )
            shot(page, "16-v4-preview-skipped.png")
        except Exception:
            try:
                shot(page, "failure-v4.png")
            finally:
                print(cs.exthost_logs())
            raise
        finally:
            browser.close()


def test_bundled_server_without_settings(
    tmp_path: Path, chromium: str, vsix: Path, code_server_factory: Factory
) -> None:
    """No agentv.server.* setting and no Python extension: the server bundled in the .vsix must start,
    run by a bare `python3` that has neither agentv_lsp nor pygls installed."""
    import zipfile

    from playwright.sync_api import sync_playwright

    with zipfile.ZipFile(vsix) as z:
        if "extension/bundled/libs/common/agentv_lsp/__init__.py" not in z.namelist():
            pytest.fail(
                f"{vsix} has no bundled server (extension/bundled/libs/common/agentv_lsp)", pytrace=False
            )
    # A bare interpreter (python3.11-3.13 on PATH, if any, are tried before it: the bundle has
    # the compiled parts of each).
    base = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(base)
    workspace = make_workspace(tmp_path / "ws")
    cs = code_server_factory(
        workspace, settings={}, env={"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, env=cs.env, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 860})
        page.set_default_timeout(STEP_MS)
        try:
            page.goto(cs.url, timeout=STEP_MS)
            open_file(page, SMOKE_FILE)
            page.locator(".monaco-editor .squiggly-error, .monaco-editor .squiggly-warning").first.wait_for(
                timeout=STEP_MS
            )
            log = cs.agentv_log()
            assert "bundled server" in log, log
            assert re.search(r"probe bundled server .* ok: .*bundled/libs/common/agentv_lsp", log), log
        except Exception:
            try:
                shot(page, "failure-bundled.png")
            finally:
                print(cs.exthost_logs())
            raise
        finally:
            browser.close()


# -- issue 27: the editor as a new user finds it, beside (a stand-in for) Red Hat's YAML extension --

PLAIN_YAML = "users:\n  - name: ada\n    role: admin\n  - name: bob\n    role: viewer\n"
TYPO_SUITE = """\
description: A 4.x suite with a misspelt key (tests/e2e).
tests:
  - id: typo-capital
    critera: The answer names Paris.
    input: What is the capital of France?
  - id: fine-river
    criteria: The answer names the Seine.
    input: Which river flows through Paris?
"""
LEGACY_SUITE = """\
$schema: agentv-eval-v2
description: A v2 suite the user migrates (tests/e2e).
execution:
  evaluators:
    - name: rubric
      type: llm_judge
      prompt: judges/legacy-judge.md
evalcases:
  - id: legacy-capital
    outcome: The answer names Paris.
    input_messages:
      - role: user
        content: What is the capital of France?
  - id: legacy-river
    outcome: The answer names the Seine.
    input_messages:
      - role: user
        content: Which river flows through Paris?
"""
LEGACY_JUDGE = "Grade {{candidate_answer}} against {{reference_answer}}.\n"


def run_command(page: Page, title: str) -> None:
    """Runs a command from the palette (F1) by its title."""
    page.keyboard.press("F1")
    box = page.locator(".quick-input-widget input")
    box.wait_for(timeout=STEP_MS)
    box.fill(f">{title}")
    page.locator(".quick-input-list .monaco-list-row", has_text=title).first.wait_for(timeout=STEP_MS)
    page.keyboard.press("Enter")


def marker_rows(page: Page) -> list[str]:
    """The text of every diagnostic row of the Problems panel (file rows have no `[Ln`)."""
    rows = page.locator(".markers-panel .monaco-list-row").all_inner_texts()
    return [flat(r) for r in rows if "[Ln" in r]


def foreign_rows(page: Page) -> list[str]:
    """Problems rows that are not ours (the YAML extension's)."""
    return [r for r in marker_rows(page) if "agentv-lsp" not in r]


def quick_fix(page: Page, at: Locator, title: str) -> Locator:
    """Ctrl+. on `at`, and the row of the code action menu with `title`."""
    at.click()
    page.keyboard.press("Control+.")
    row = page.locator(".action-widget .monaco-list-row", has_text=title).first
    row.wait_for(timeout=STEP_MS)
    return row


def apply_action(page: Page, title: str) -> None:
    """Applies the action `title` of the open code action menu from the keyboard (as a user
    does; a mouse click on a row is not always taken while the menu settles)."""
    for _ in range(12):
        focused = page.locator(".action-widget .monaco-list-row.focused").first
        if title in (focused.get_attribute("aria-label") or focused.inner_text()):
            page.keyboard.press("Enter")
            page.locator(".action-widget").first.wait_for(state="hidden", timeout=STEP_MS)
            return
        page.keyboard.press("ArrowDown")
    raise AssertionError(f"no code action {title!r} in the menu")


def test_new_user_beside_the_yaml_extension(
    tmp_path: Path, chromium: str, code_server_factory: Factory, yaml_standin: tuple[Path, Path] | None
) -> None:
    """What a new user meets with the .vsix beside a YAML extension that reads every extension's
    `yamlValidation` (yaml-language-server 1.25.0 in a stand-in for vscode-yaml, when installed):
    plain YAML under `evals/` and a valid 4.x file get nothing from either server, a v2 file's
    `$schema: agentv-eval-v2` warning from the YAML extension goes with our quick fix, a misspelt key
    is fixed by "did you mean", and "Migrate this file to AgentV 4" refreshes every view (tab, status
    item, lenses, Problems as `agentv-lsp check` sees the migrated files, preview) and says what it
    changed, with the per-test proof one click away."""
    from playwright.sync_api import sync_playwright

    workspace = make_workspace(tmp_path / "ws")
    (workspace / ".git").mkdir()  # a repository: 4.x reads files from its root
    evals = workspace / "evals"
    (evals / "fixtures").mkdir()
    (evals / "fixtures" / "data.yaml").write_text(PLAIN_YAML)
    (evals / "typos.eval.yaml").write_text(TYPO_SUITE)
    (evals / "judges").mkdir(exist_ok=True)
    (evals / "judges" / "legacy-judge.md").write_text(LEGACY_JUDGE)
    (evals / "legacy.yaml").write_text(LEGACY_SUITE)
    (evals / "valid.eval.yaml").write_text(TYPO_SUITE.replace("critera", "criteria"))
    valid_check = agentv_cli(workspace, "check", "evals/valid.eval.yaml", "--format", "json")
    assert not [d for d in valid_check["diagnostics"] if d["severity"] == "error"], valid_check

    # expected values: the CLI's migration, and its check / preview of the migrated copy
    planned = agentv_cli(workspace, "migrate", "--format", "json", "evals/legacy.yaml")
    (plan,) = [
        m for m in (planned if isinstance(planned, list) else planned["files"]) if m["status"] == "migrated"
    ]
    new_name = Path(plan["new_file"]).name
    assert new_name != "legacy.yaml" and [Path(c["file"]).name for c in plan["companions"]] == [
        "legacy-judge.md"
    ]
    migrated = tmp_path / "migrated"
    shutil.copytree(workspace, migrated)
    # the CLI writes only the paths it is given: the grader template is named too (the editor's
    # action shows the whole edit, template included, before it is applied)
    agentv_cli(
        migrated, "migrate", "--write", "--format", "json", "evals/legacy.yaml", "evals/judges/legacy-judge.md"
    )
    after_check = agentv_cli(migrated, "check", f"evals/{new_name}", "--format", "json")
    after_preview = agentv_cli(migrated, "preview", f"evals/{new_name}", "--json")
    test_ids = [c["id"] for c in after_preview["cases"]]
    assert test_ids == ["legacy-capital", "legacy-river"] and not after_preview["skipped"], after_preview

    extra: tuple[Path, ...] = ()
    env: dict[str, str] = {}
    if yaml_standin is not None:
        extra, env = (yaml_standin[0],), {"AGENTV_E2E_YLS": str(yaml_standin[1])}
    elif os.environ.get("CI"):
        pytest.fail(
            "yaml-language-server is not installed in $AGENTV_E2E_CACHE/yls (see tests/e2e/README.md)"
        )
    cs = code_server_factory(workspace, env=env, extra_vsix=extra)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, env=cs.env, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 860})
        page.set_default_timeout(STEP_MS)
        try:
            page.goto(cs.url, timeout=STEP_MS)

            # 1. A v2 file: the YAML extension reads `$schema: agentv-eval-v2` as a schema file next to
            # it; our quick fix (a `$schema=none` modeline) makes it stop, and AgentV still checks it.
            open_file(page, SMOKE_FILE)
            page.keyboard.press("Control+Shift+M")  # the Problems panel stays open below the editor
            page.locator(".markers-panel").wait_for(timeout=STEP_MS)
            page.locator(".markers-panel .monaco-list-row", has_text="usr").first.wait_for(timeout=STEP_MS)
            if yaml_standin is not None:
                failure = page.locator(
                    ".markers-panel .monaco-list-row", has_text="Unable to load schema"
                ).first
                failure.wait_for(timeout=STEP_MS)
                quick_fix(page, token(page, "agentv-eval-v2"), "Stop the YAML extension")
                shot(page, "21-yaml-extension-fix.png")
                apply_action(page, "Stop the YAML extension")
                page.locator(".monaco-editor .view-line", has_text="yaml-language-server").first.wait_for(
                    timeout=STEP_MS
                )
                failure.wait_for(state="detached", timeout=STEP_MS)
                page.locator(".markers-panel .monaco-list-row", has_text="usr").first.wait_for(
                    timeout=STEP_MS
                )
                assert foreign_rows(page) == [], foreign_rows(page)
            run_command(page, "View: Close All Editors")

            # 2. Plain YAML under evals/ and a valid 4.x file: nothing from either server.
            for name in ("data.yaml", "valid.eval.yaml"):
                open_file(page, name)
                page.locator("#status\\.languageStatus").wait_for(timeout=STEP_MS)
                time.sleep(4)  # both servers have answered an opened file by now (the v2 file took < 1 s)
                assert foreign_rows(page) == [], (name, foreign_rows(page))
                assert page.locator(".monaco-editor .squiggly-error").count() == 0, name
                run_command(page, "View: Close All Editors")
            shot(page, "22-plain-yaml-clean.png")

            # 3. Did you mean: the misspelt key's quick fix applies and its warning goes.
            open_file(page, "typos.eval.yaml")
            typo_row = page.locator(
                ".markers-panel .monaco-list-row", has_text="Did you mean 'criteria'?"
            ).first
            typo_row.wait_for(timeout=STEP_MS)
            # one finding per mistake: the misspelt key says the test then lacks its criteria
            # and that AgentV skips it (no separate skip or lint row)
            about_typo = [r for r in marker_rows(page) if "critera" in r or "typo-capital" in r]
            assert len(about_typo) == 1 and "Skipping incomplete test" in about_typo[0], about_typo
            quick_fix(page, token(page, "critera"), "Change to 'criteria'")
            shot(page, "23-did-you-mean.png", readme="quickfix.png")
            apply_action(page, "Change to 'criteria'")
            typo_row.wait_for(state="detached", timeout=STEP_MS)
            assert token(page, "critera").count() == 0
            run_command(page, "View: Close All Editors")

            # 4. Migrate: every view shows the migrated file as the CLI sees it once written.
            open_file(page, "legacy.yaml")
            page.locator(".monaco-editor .codelens-decoration").first.wait_for(timeout=STEP_MS)
            # no AgentV in the project: judged as v2 by its format, with a hint that today's
            # AgentV would not load it (issue 36); the migration is its quick fix
            hint = page.locator(".markers-panel .monaco-list-row", has_text="runtime-v2-undeclared").first
            hint.wait_for(timeout=STEP_MS)
            assert "4.42.4" in hint.inner_text(), hint.inner_text()
            quick_fix(page, token(page, "evalcases"), "Migrate this file to AgentV 4")
            apply_action(page, "Migrate this file to AgentV 4")
            page.locator(".tab.active", has_text=new_name).wait_for(timeout=STEP_MS)
            toast = page.locator(".notifications-toasts .notification-toast", has_text="migrated").first
            toast.wait_for(timeout=STEP_MS)
            told = flat(toast.inner_text())
            assert f"evals/{new_name}" in told and "renamed from evals/legacy.yaml" in told, told
            assert "judges/legacy-judge.md" in told, told
            shot(page, "24-migrated.png", readme="migrate.png")
            # the per-test proof, from the notification
            toast.get_by_role("button", name="Show Per-Test Proof").click()
            # read-only and virtual: a `.md` tab, never an unsaved "Untitled-1 ●"
            proof_tab = page.locator(".tab.active", has_text=".md").first
            proof_tab.wait_for(timeout=STEP_MS)
            page.locator(".monaco-editor .view-line", has_text="Migration of").first.wait_for(timeout=STEP_MS)
            for test_id in test_ids:
                page.locator(".monaco-editor .view-line", has_text=test_id).first.wait_for(timeout=STEP_MS)
            assert "Untitled" not in proof_tab.inner_text(), proof_tab.inner_text()
            page.keyboard.type("x")  # read-only: typing changes nothing
            time.sleep(0.5)
            assert page.locator(".tab.dirty").count() == 0, page.locator(".tab.dirty").all_inner_texts()
            shot(page, "25-migration-proof.png")
            page.locator(f".tab[data-resource-name='{new_name}']").first.click()
            page.locator(f".tab.active[data-resource-name='{new_name}']").first.wait_for(timeout=STEP_MS)
            lenses = page.locator(".monaco-editor .codelens-decoration")
            page.locator(".monaco-editor .codelens-decoration a", has_text="Preview").nth(
                len(test_ids) - 1
            ).wait_for(timeout=STEP_MS)
            assert not [t for t in lenses.all_inner_texts() if "skip" in t.lower()], lenses.all_inner_texts()
            # Problems: what `agentv-lsp check` reports on the migrated files
            for d in after_check["diagnostics"]:
                problem_row(page, d).wait_for(timeout=STEP_MS)
            ours = [r for r in marker_rows(page) if "agentv-lsp" in r]
            assert len(ours) == len(after_check["diagnostics"]), (ours, after_check["diagnostics"])
            # the status item: judged by 4.x now
            lang_status = page.locator("#status\\.languageStatus")
            lang_status.hover()
            status_hover = page.locator(".monaco-hover:not(.hidden)", has_text="no AgentV in the project").first
            status_hover.wait_for(timeout=STEP_MS)
            # a short line: "Show Log" stays in view (it was cut off at the window's edge)
            page.locator(".monaco-hover:not(.hidden) a", has_text="Show Log").first.wait_for(timeout=STEP_MS)
            link = page.locator(".monaco-hover:not(.hidden) a", has_text="Show Log").first.bounding_box()
            assert link and link["x"] + link["width"] <= 1400, link
            shot(page, "27-status.png")
            page.mouse.move(5, 5)
            page.keyboard.press("Escape")
            # the preview of the migrated file
            frame = preview_by_first_lens(page, test_ids[0])
            assert frame.locator(".badge.runtime").inner_text() == f"AgentV {after_preview['runtime']}"
            shot(page, "26-migrated-preview.png")
            # the settings under Extensions > AgentV read "AgentV", not the "Agentv" VS Code derives
            # from the keys: it leaves the prefix out where the extension's name is the keys' first
            # part (a search result still shows it, as for every extension)
            run_command(page, "View: Close All Editors")  # the settings editor full width, its contents list shown
            page.keyboard.press("Control+,")
            toc = page.locator(".settings-toc-container .monaco-list-row")
            toc.filter(has_text="Extensions").first.click()
            toc.filter(has_text="AgentV").first.click()
            page.locator(".settings-editor .setting-item-label", has_text="Check Time Budget Ms").first.wait_for(
                timeout=STEP_MS
            )
            time.sleep(0.5)
            titles = page.locator(".settings-editor .setting-item-title").all_inner_texts()
            assert titles and not [t for t in titles if "Agentv" in t], titles
            shot(page, "28-settings.png")
        except Exception:
            try:
                shot(page, "failure-new-user.png")
            finally:
                print(cs.exthost_logs())
            raise
        finally:
            browser.close()
