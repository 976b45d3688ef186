"""End-to-end: the packaged extension in code-server, driven by Chromium through Playwright.

A copy of examples/ (or a small generated eval repository while examples/ is empty) gets one extra eval
file with a deliberate error (role `usr`). The test then checks what a user sees: the squiggle and its
Problems entry, the hover on a case id with the question text, the "Preview" code lens opening the
preview panel with the chat prompt as bubbles (escaped, not rendered as HTML), and the panel following
the cursor to the next case. Screenshots go to tests/e2e/artifacts/. Cold start to first diagnostic is
printed and saved in artifacts/timings.json.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
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


def open_file(page: Page, name: str) -> None:
    """Opens a workspace file through Quick Open (Ctrl+P)."""
    page.locator(".monaco-workbench").wait_for(timeout=STEP_MS)
    # The explorer has loaded the folder once a row shows up.
    page.locator(".explorer-folders-view .monaco-list-row").first.wait_for(timeout=STEP_MS)
    page.keyboard.press("Control+P")
    box = page.locator(".quick-input-widget input")
    box.wait_for(timeout=STEP_MS)
    box.fill(name)
    page.locator(".quick-input-list .monaco-list-row", has_text=name).first.wait_for(timeout=STEP_MS)
    page.keyboard.press("Enter")
    page.locator(".tab.active", has_text=name).wait_for(timeout=STEP_MS)


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


def test_bundled_server_without_settings(
    tmp_path: Path, chromium: str, vsix: Path, code_server_factory: Factory
) -> None:
    """No agentv.server.* setting and no Python extension: the server bundled in the .vsix must start,
    run by a bare `python3` that has neither agentv_lsp nor pygls installed."""
    import sys
    import zipfile

    from playwright.sync_api import sync_playwright

    with zipfile.ZipFile(vsix) as z:
        if "extension/bundled/libs/agentv_lsp/__init__.py" not in z.namelist():
            pytest.fail(f"{vsix} has no bundled server (extension/bundled/libs/agentv_lsp)", pytrace=False)
    # A bare interpreter of the same version as the one the bundle was built with.
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
            assert re.search(r"probe bundled server .* ok: .*bundled/libs/agentv_lsp", log), log
        except Exception:
            try:
                shot(page, "failure-bundled.png")
            finally:
                print(cs.exthost_logs())
            raise
        finally:
            browser.close()
