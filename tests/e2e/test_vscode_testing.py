"""End-to-end: AgentV tests in VS Code's Testing view, run by the real AgentV 4.42.4 against a mock
target, and each verdict beside its test (lens, hover), stale once the prompt is edited.

The workspace is the project of tests/results_runs without its recorded runs, with the runtime the
oracle installed as its own `node_modules` (what `npm install agentv` gives a project)."""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from tests.e2e.conftest import server_settings
from tests.e2e.test_vscode_e2e import (
    CHROMIUM_ARGS,
    STEP_MS,
    Factory,
    hover_over,
    open_file,
    run_command,
    shot,
    token,
)
from tests.oracle_v4.oracle import oracle_unavailable
from tests.results_runs.project import RECORDED, run_eval

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.e2e


def lens(page: Page, text: str) -> None:
    page.locator(".monaco-editor .codelens-decoration", has_text=text).first.wait_for(timeout=STEP_MS)


def project_with_agentv(workspace: Path) -> Path:
    """The recorded project without its runs, with the installed runtime as its own
    node_modules (what `npm install agentv` gives a project); in CI the runtime must be there."""
    reason = oracle_unavailable()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"the AgentV runtime is needed: {reason}", pytrace=False)
        pytest.skip(reason)
    shutil.copytree(RECORDED, workspace, ignore=shutil.ignore_patterns("results"))
    (workspace / ".git").mkdir()
    (workspace / "node_modules").symlink_to(os.environ["AGENTV4_MODULES"], target_is_directory=True)
    return workspace


def run_test_at(page: Page, test_id: str) -> None:
    token(page, test_id).click()
    run_command(page, "Test: Run Test at Cursor")


def test_the_testing_view_runs_tests_and_shows_their_verdicts(
    tmp_path: Path, chromium: str, code_server_factory: Factory
) -> None:
    from playwright.sync_api import sync_playwright

    workspace = project_with_agentv(tmp_path / "ws")
    cs = code_server_factory(workspace)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, env=cs.env, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 860})
        page.set_default_timeout(STEP_MS)
        try:
            page.goto(cs.url, timeout=STEP_MS)
            open_file(page, "geo.eval.yaml")
            lens(page, "Preview")

            # Run two tests from the editor through the Testing view's run profile.
            run_test_at(page, "capital")
            page.locator(".monaco-editor .codicon-testing-passed-icon").first.wait_for(timeout=STEP_MS * 2)
            run_test_at(page, "failing")
            page.locator(".monaco-editor .codicon-testing-failed-icon").first.wait_for(timeout=STEP_MS * 2)
            runs = list((workspace / ".agentv" / "results" / "runs").glob("*/*/index.jsonl"))
            assert len(runs) == 2  # AgentV itself ran, once per test

            # The verdicts beside the tests, and first in the hover.
            lens(page, "✓ 1.00 · default")
            lens(page, "✗ 0.00 · default")
            shown = hover_over(page, token(page, "capital"), "Last run")
            assert "contains-Paris: pass" in shown.inner_text()
            page.mouse.move(5, 5)
            page.keyboard.press("Escape")

            # The Testing view lists every test, with the two outcomes.
            run_command(page, "Testing: Focus on Test Explorer View")
            tree = page.locator(".test-explorer .monaco-list")
            for name in ("ws", "geo.eval.yaml"):  # folder -> eval file -> test
                row = tree.locator(".monaco-list-row", has_text=name).first
                row.wait_for(timeout=STEP_MS)
                if row.get_attribute("aria-expanded") == "false":
                    row.locator(".monaco-tl-twistie").click()
            for test_id in ("capital", "failing", "never-run"):
                tree.locator(".monaco-list-row", has_text=test_id).first.wait_for(timeout=STEP_MS)
            time.sleep(0.5)
            shot(page, "41-testing-view.png", readme="testing.png")

            # Edit the failing test's question: its result is stale, the other's is not.
            page.keyboard.press("Control+1")
            token(page, "failing").click()
            page.keyboard.press("ArrowDown")  # its `input:` line
            page.keyboard.press("End")
            page.keyboard.type(" Answer in one word.")
            page.locator(
                ".monaco-editor .codelens-decoration", has_text=re.compile(r"✗ 0\.00 ·.*· stale")
            ).first.wait_for(timeout=STEP_MS)
            assert (
                page.locator(".monaco-editor .codelens-decoration", has_text="✓ 1.00")
                .first.inner_text()
                .find("stale")
                == -1
            )
            shot(page, "42-testing-stale.png")

            # A run from the terminal (not the Testing view) of the saved file: the client reports
            # the new index, and the result is no longer stale.
            page.keyboard.press("Control+S")
            time.sleep(1)
            run_eval(workspace, os.environ["AGENTV4_MODULES"], "evals/geo.eval.yaml", ("failing",))
            page.locator(
                ".monaco-editor .codelens-decoration", has_text=re.compile(r"✗ 0\.00 · default · just now$")
            ).first.wait_for(timeout=STEP_MS)
        except Exception:
            shot(page, "4x-testing-failure.png")
            print(cs.agentv_log()[-6000:])
            raise
        finally:
            browser.close()


def test_in_restricted_mode_the_status_item_says_so_and_no_test_runs(
    tmp_path: Path, chromium: str, code_server_factory: Factory
) -> None:
    """An untrusted folder: the status item names Restricted Mode, the Testing view says why its
    tests do not run, and running one starts nothing (no AgentV run is written)."""
    from playwright.sync_api import sync_playwright

    workspace = project_with_agentv(tmp_path / "ws")
    cs = code_server_factory(workspace, {}, trusted=False, user_settings=server_settings())
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, env=cs.env, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 860})
        page.set_default_timeout(STEP_MS)
        try:
            page.goto(cs.url, timeout=STEP_MS)
            open_file(page, "geo.eval.yaml")
            lens(page, "Preview")
            status = page.locator("#status\\.languageStatus")
            status.wait_for(timeout=STEP_MS)
            status.hover()
            page.locator(".monaco-hover:not(.hidden)", has_text="Restricted Mode").first.wait_for(
                timeout=STEP_MS
            )
            shot(page, "43-restricted-status.png")
            page.mouse.move(5, 5)
            page.keyboard.press("Escape")

            # VS Code itself asks first ("Running tests may execute code in your workspace"); the
            # user declines, and the extension's own guard holds behind it either way
            run_test_at(page, "capital")
            page.locator(".monaco-dialog-box", has_text="trust").first.wait_for(timeout=STEP_MS)
            shot(page, "43b-restricted-trust-question.png")
            page.locator(".monaco-dialog-box .monaco-button", has_text="Cancel").first.click()
            run_command(page, "Testing: Focus on Test Explorer View")
            tree = page.locator(".test-explorer .monaco-list")
            tree.locator(".monaco-list-row", has_text="ws").first.wait_for(timeout=STEP_MS)
            page.locator(".test-explorer", has_text="Restricted Mode").first.wait_for(timeout=STEP_MS)
            shot(page, "44-restricted-testing.png")
            time.sleep(2)
            assert not (workspace / ".agentv" / "results").exists()  # AgentV never ran
        except Exception:
            shot(page, "4x-restricted-failure.png")
            print(cs.agentv_log()[-6000:])
            raise
        finally:
            browser.close()
