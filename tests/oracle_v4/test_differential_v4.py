"""Differential test: generated AgentV 4.x eval files, the real 4.42.4 runtime vs our preview.

A hypothesis strategy (evalgen_v4.repos) draws small repositories; all of them are written to a
temporary folder and the published runtime records every eval file in ONE node process
(driver.mjs batch: loadTests, buildPromptInputs in both modes, the grader request through
runEvalCase with fake providers, and the checks `agentv validate` makes). Our `preview_v4` then
previews each file and the two must agree on every compared field (the fields of
golden-v4/compare.py, plus `judge_prompt`), and our check must report what validate reports
(compare.py's check rules): no difference is allowed.

Settings (environment):
  AGENTV4_MODULES         node_modules with @agentv/core@4.42.4 + agentv@4.42.4 (install.sh); the
                          test skips without it or without node
  AGENTV4_DIFF_EXAMPLES   how many repositories (default 10000 when CI is set, else 200)
  AGENTV4_DIFF_SEED       the hypothesis seed (default: a fixed one when CI is set, so the gate is
                          reproducible; a fresh one otherwise; printed on failure)
  AGENTV4_DIFF_REPORT     a Markdown file to write the preview differences to (smallest repro per
                          kind); the check's go to the same name with `.check.md`
"""

from __future__ import annotations

import os
import random
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings

from tests.oracle_v4.evalgen_v4 import ENVIRONMENT, GeneratedRepo, repos
from tests.oracle_v4.oracle import (
    Difference,
    compare_check,
    compare_with_runtime,
    loader_contradictions,
    oracle_unavailable,
    our_check,
    our_preview,
    run_driver_batch,
    scrub,
    write_repo,
)

CI_SEED = 20261124


def _example_count() -> int:
    configured = os.environ.get("AGENTV4_DIFF_EXAMPLES")
    if configured:
        return max(1, int(configured))
    return 10000 if os.environ.get("CI") else 200  # CI: about 2 minutes on 2 cores, 0.5 GB


def draw_repos(count: int, seed_value: int) -> list[GeneratedRepo]:
    """`count` repositories drawn by the strategy (generation only: nothing to shrink here)."""
    drawn: list[GeneratedRepo] = []

    @seed(seed_value)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(repos())
    def gather(repo: GeneratedRepo) -> None:
        drawn.append(repo)

    gather()
    return drawn[:count]


def _signature(difference: Difference) -> str:
    """A coarse kind for grouping: where it differs and how (ids and values stripped)."""
    where = "case" if difference.where.startswith("case ") else difference.where
    detail = difference.detail
    path = detail.split(":", 1)[0]
    path = path.split(" ", 2)[-1] if path.startswith("case ") else path
    return f"{where} | {''.join(ch for ch in path if not ch.isdigit())}"


def write_report(
    path: Path,
    found: list[tuple[GeneratedRepo, Path, list[Difference]]],
    total: int,
    seed_value: int,
    ours: str = "preview_v4",
) -> None:
    groups: dict[str, tuple[GeneratedRepo, Difference, int]] = {}
    for repo, _root, differences in found:
        for difference in differences:
            key = _signature(difference)
            size = len(repo.describe())
            if key not in groups or size < groups[key][2]:
                groups[key] = (repo, difference, size)
    lines = [
        f"# AgentV 4.42.4 differential test: differences ({ours})",
        "",
        f"{len(found)} of {total} generated eval files differ (seed {seed_value}); "
        f"{len(groups)} kinds, the smallest repro of each below.",
        "Each repro: the files of the repo (eval file first), then the first difference "
        f"(runtime = AgentV 4.42.4, ours = {ours}). Paths are relative to the repo root.",
        "Re-run: AGENTV4_DIFF_SEED=<seed> AGENTV4_DIFF_EXAMPLES=<n> pytest tests/oracle_v4/test_differential_v4.py",
        "",
    ]
    for key, (repo, difference, _size) in sorted(groups.items()):
        lines += [f"## {key}", "", f"eval file: `{repo.eval_file}`", "", "```"]
        lines += [repo.describe_eval_first()]
        lines += ["```", "", f"- {difference.where}: {difference.detail}", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


@dataclass
class OracleRun:
    seed: int
    repos: list[GeneratedRepo]
    roots: list[Path]
    records: list[dict[str, Any]]
    started: float


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OracleRun]:
    """The drawn repositories, written out and recorded by the runtime in one node process."""
    reason = oracle_unavailable()
    if reason:
        pytest.skip(reason)
    with pytest.MonkeyPatch.context() as patch:
        for name, value in ENVIRONMENT.items():  # node inherits them; our loader reads os.environ
            patch.setenv(name, value)
        patch.delenv("AGENTV_DIFF_UNSET", raising=False)
        seed_value = int(
            os.environ.get("AGENTV4_DIFF_SEED")
            or (CI_SEED if os.environ.get("CI") else random.randrange(1 << 32))
        )
        started = time.monotonic()
        drawn = draw_repos(_example_count(), seed_value)
        base = tmp_path_factory.mktemp("generated")
        roots = [write_repo(base / f"r{i}", repo.files) for i, repo in enumerate(drawn)]
        records = run_driver_batch(
            [(root, [repo.eval_file]) for root, repo in zip(roots, drawn, strict=True)]
        )
        assert len(records) == len(drawn), "the driver must record every eval file"
        yield OracleRun(seed_value, drawn, roots, records, started)


def _fail_with(found: list[tuple[GeneratedRepo, Path, list[Difference]]], run: OracleRun, what: str) -> None:
    if not found:
        return
    repo, _root, differences = min(found, key=lambda item: len(item[0].describe()))
    pytest.fail(
        f"{len(found)} of {len(run.repos)} generated eval files: {what} (seed {run.seed}, "
        f"{time.monotonic() - run.started:.0f}s). Smallest:\n{repo.describe_eval_first()}\n"
        + "\n".join(f"- {d.where}: {d.detail}" for d in differences[:5]),
        pytrace=False,
    )


def test_preview_matches_the_runtime(oracle_run: OracleRun) -> None:
    """Every loaded test, its prompts in both modes, the grader request and the messages."""
    found: list[tuple[GeneratedRepo, Path, list[Difference]]] = []
    for repo, root, record in zip(oracle_run.repos, oracle_run.roots, oracle_run.records, strict=True):
        try:
            ours = our_preview(root, repo.eval_file)
        except Exception:  # a crash is a difference too, with its traceback
            differences = [Difference("crash", scrub(traceback.format_exc(limit=6), root))]
        else:
            differences = compare_with_runtime(record, ours, root)
        if differences:
            found.append((repo, root, differences))
    report = os.environ.get("AGENTV4_DIFF_REPORT")
    if report:
        write_report(Path(report), found, len(oracle_run.repos), oracle_run.seed)
    _fail_with(found, oracle_run, "the preview differs from AgentV 4.42.4")


def test_check_agrees_with_validate(oracle_run: OracleRun) -> None:
    """`agentv-lsp check` against `agentv validate` and the load messages (compare.py's rules),
    and no finding contradicting what the runtime loaded (`loader_contradictions`)."""
    found: list[tuple[GeneratedRepo, Path, list[Difference]]] = []
    for repo, root, record in zip(oracle_run.repos, oracle_run.roots, oracle_run.records, strict=True):
        try:
            diagnostics = our_check(root, repo.eval_file)
            problems = compare_check(record, diagnostics)
            written = repo.files[repo.eval_file]
            text = written if isinstance(written, str) else written.decode("utf-8", "replace")
            problems += loader_contradictions(record, diagnostics, text)
        except Exception:
            problems = [scrub(traceback.format_exc(limit=6), root)]
        if problems:
            found.append((repo, root, [Difference("check", p) for p in problems]))
    report = os.environ.get("AGENTV4_DIFF_REPORT")
    if report:
        write_report(
            Path(report).with_suffix(".check.md"),
            found,
            len(oracle_run.repos),
            oracle_run.seed,
            "check_v4_document",
        )
    _fail_with(found, oracle_run, "the check disagrees with AgentV 4.42.4")
