"""The last run of each test: AgentV 4.42.4's run folders read as untrusted data.

`agentv eval run` writes `<cwd>/.agentv/results/runs/<experiment>/<run>/index.jsonl`, one JSON row
per test and target (apps/cli/src/commands/eval/result-layout.ts, core's run-artifacts.ts), and
beside it, per test, `input.md` (the messages sent: `@[role]:\\n<content>` joined by blank lines),
`outputs/answer.md` and `grading.json` (each grader's reasoning). A row names its eval file
repo-relative (`projection_identity.dimensions.eval_path`, the loader's `evalFileRepoPath`) and
its test (`test_id`).

Everything here is data from files anyone could have written: reads go through the
`FileSystem` (regular files, bounded), the paths a row names are followed only inside its run
folder, malformed rows are named (`problems`) and skipped, and no count is unbounded.
No LSP types: `preview --json`, hover and lenses all read `last_run_json`.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentv_lsp.engine.files import FileReadError, FileSystem

RUNS_FOLDER = (".agentv", "results", "runs")
INDEX_NAME = "index.jsonl"
# Bounds: the newest run folders read, a row's and an index's size, texts shown.
MAX_RUN_FOLDERS = 200
MAX_INDEX_BYTES = 32 * 1024 * 1024
MAX_ROW_CHARS = 1024 * 1024
MAX_ROWS_PER_RUN = 100_000
MAX_SIDE_FILE_BYTES = 4 * 1024 * 1024
MAX_SHOWN_CHARS = 4000
MAX_PROBLEMS = 50

# `execution_status` as `agentv eval run` shows it (run-eval.ts: ok PASS, quality_failure FAIL,
# execution_error ERROR); the orchestrator already applied the suite's threshold.
_STATUS = {"ok": "passed", "quality_failure": "failed", "execution_error": "error"}
DEFAULT_THRESHOLD = 0.8  # evaluation/graders/scoring.ts, for rows without a status


@dataclass(frozen=True, slots=True)
class GraderVerdict:
    name: str | None
    type: str | None
    verdict: str | None
    score: float | None
    reasoning: str | None


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One row of one run: a test's result against one target."""

    run_dir: str  # absolute
    timestamp: str
    target: str | None
    test_id: str
    eval_path: str | None  # repo-relative, "/"-separated, as the runtime wrote it
    score: float | None
    status: str  # "passed" | "failed" | "error"
    graders: tuple[GraderVerdict, ...]
    answer_file: str | None  # absolute, inside run_dir
    input_file: str | None
    grading_file: str | None
    error: str | None = None


@dataclass
class RunResults:
    """Every row read, by (eval path, test id); `problems` names what was skipped and why."""

    rows: dict[tuple[str, str], list[RunRecord]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)

    def latest(self, eval_path: str, test_id: str, target: str | None = None) -> RunRecord | None:
        """The newest row of this test (of this target, when given)."""
        candidates = [
            r for r in self.rows.get((eval_path, test_id), ()) if target is None or r.target == target
        ]
        return max(candidates, key=lambda r: (r.timestamp, r.run_dir), default=None)

    def latest_per_target(self, eval_path: str, test_id: str) -> dict[str | None, RunRecord]:
        newest: dict[str | None, RunRecord] = {}
        for row in self.rows.get((eval_path, test_id), ()):
            held = newest.get(row.target)
            if held is None or (row.timestamp, row.run_dir) > (held.timestamp, held.run_dir):
                newest[row.target] = row
        return newest

    def _problem(self, text: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(text)


def runs_roots(folders: Iterable[str]) -> list[str]:
    """`<folder>/.agentv/results/runs` for each folder (the working directory `agentv eval run`
    ran in: the repo root, the workspace folder), once each."""
    seen: list[str] = []
    for folder in folders:
        root = os.path.join(os.path.abspath(folder), *RUNS_FOLDER)
        if root not in seen:
            seen.append(root)
    return seen


def run_folders(roots: Sequence[str], fs: FileSystem) -> list[str]:
    """The run folders under each runs root (`<experiment>/<run>` holding an index.jsonl), newest
    run names last, at most MAX_RUN_FOLDERS of them. Links are not followed."""
    found: list[tuple[str, str]] = []
    for root in roots:
        for experiment in _subfolders(root, fs):
            for run in _subfolders(experiment, fs):
                if fs.exists(os.path.join(run, INDEX_NAME)):
                    found.append((os.path.basename(run), run))
    found.sort()
    return [run for _, run in found[-MAX_RUN_FOLDERS:]]


def _subfolders(folder: str, fs: FileSystem) -> list[str]:
    if not fs.is_allowed(folder):
        return []
    try:
        names = sorted(e.name for e in fs.scandir(folder) if e.is_dir(follow_symlinks=False))
    except (OSError, ValueError):
        return []
    return [os.path.join(folder, name) for name in names]


def read_runs(run_dirs: Sequence[str], fs: FileSystem) -> RunResults:
    """Every row of these run folders (a folder given that holds no index.jsonl is a problem)."""
    results = RunResults()
    reader = FileSystem(
        max_bytes=MAX_INDEX_BYTES, allowed_roots=fs.allowed_roots, overlays=fs.overlays, cache=False
    )
    for run_dir in run_dirs:
        index = os.path.join(run_dir, INDEX_NAME)
        try:
            read = reader.read(index)
        except FileReadError as exc:
            results._problem(f"{index}: cannot be read ({exc})")
            continue
        results.runs.append(run_dir)
        if read.truncated:
            results._problem(f"{index}: larger than {MAX_INDEX_BYTES:,} bytes; only its first rows are read")
        for number, line in enumerate(read.text.splitlines(), start=1):
            if number > MAX_ROWS_PER_RUN:
                results._problem(f"{index}: more than {MAX_ROWS_PER_RUN:,} rows; the rest is not read")
                break
            if not line.strip():
                continue
            record = _record(line, run_dir, f"{index}:{number}", results)
            if record is not None and record.eval_path is not None:
                results.rows.setdefault((record.eval_path, record.test_id), []).append(record)
    return results


def _record(line: str, run_dir: str, where: str, results: RunResults) -> RunRecord | None:
    def problem(why: str) -> None:
        results._problem(f"{where}: {why}")

    if len(line) > MAX_ROW_CHARS:
        problem(f"a row of {len(line):,} characters, skipped")
        return None
    try:
        row = json.loads(line)
    except (ValueError, RecursionError):
        problem("not JSON, skipped")
        return None
    if not isinstance(row, dict):
        problem("not a JSON object, skipped")
        return None
    test_id = row.get("test_id")
    if not isinstance(test_id, str):
        problem("no string test_id, skipped")
        return None
    dimensions = _object(_object(row.get("projection_identity")).get("dimensions"))
    eval_path = dimensions.get("eval_path")
    if not isinstance(eval_path, str):
        problem(f"test {test_id!r}: no eval_path, skipped")
        return None
    score = _number(row.get("score"))
    raw_status = row.get("execution_status")
    if isinstance(raw_status, str) and raw_status in _STATUS:
        status = _STATUS[raw_status]
    elif score is not None:
        status = "passed" if score >= DEFAULT_THRESHOLD else "failed"
    else:
        status = "error"
    graders = tuple(
        GraderVerdict(
            name=_text(g.get("name")),
            type=_text(g.get("type")),
            verdict=_text(g.get("verdict")),
            score=_number(g.get("score")),
            reasoning=_text(g.get("reasoning")),
        )
        for g in _list(row.get("scores"))[:100]
        if isinstance(g, dict)
    )
    timestamp = row.get("timestamp")
    target = row.get("target")
    error = row.get("error")
    return RunRecord(
        run_dir=run_dir,
        timestamp=timestamp if isinstance(timestamp, str) else "",
        target=target if isinstance(target, str) else None,
        test_id=test_id,
        eval_path=_portable(eval_path),
        score=score,
        status=status,
        graders=graders,
        answer_file=_inside(run_dir, row.get("answer_path") or row.get("output_path")),
        input_file=_inside(run_dir, row.get("input_path")),
        grading_file=_inside(run_dir, row.get("grading_path")),
        error=error if isinstance(error, str) else None,
    )


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _portable(path: str) -> str:
    return "/".join(part for part in path.replace("\\", "/").split("/") if part not in ("", "."))


def _inside(run_dir: str, relative: Any) -> str | None:
    """A path a row names, only when it stays inside its run folder (no absolute path, no `..`)."""
    if not isinstance(relative, str) or not relative or "\x00" in relative:
        return None
    parts = relative.replace("\\", "/").split("/")
    if relative.startswith("/") or ".." in parts or (parts and ":" in parts[0]):
        return None
    return os.path.join(run_dir, *[p for p in parts if p not in ("", ".")])


def find_results(folders: Iterable[str], fs: FileSystem, explicit: Sequence[str] = ()) -> RunResults:
    """The rows of the run folders under each folder's `.agentv/results/runs`, plus the run
    folders given explicitly (`preview --run DIR`)."""
    dirs = run_folders(runs_roots(folders), fs)
    for given in explicit:
        absolute = os.path.abspath(given)
        if absolute not in dirs:
            dirs.append(absolute)
    return read_runs(dirs, fs)


def recorded_input(prompt: dict[str, Any]) -> str:
    """What the runtime writes to `input.md` for a prompt of `buildPromptInputs` (our preview's
    `lm` or `agent` block): `buildResultInput` (the chatPrompt's messages, else one user message
    holding the question) printed by `formatOutputMarkdown`."""
    chat = prompt.get("chatPrompt")
    if isinstance(chat, list) and chat:
        messages = [(m.get("role"), m.get("content")) for m in chat if isinstance(m, dict)]
    else:
        messages = [("user", prompt.get("question"))]
    return "\n\n".join(f"@[{_js_string(role)}]:\n{_js_string(content)}" for role, content in messages)


def _js_string(value: Any) -> str:
    """`String(value ?? '')` for the values a prompt holds."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(_js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _side_text(path: str | None, fs: FileSystem, limit: int = MAX_SIDE_FILE_BYTES) -> str | None:
    if path is None:
        return None
    reader = FileSystem(max_bytes=limit, allowed_roots=fs.allowed_roots, cache=False)
    try:
        return reader.read(path).text
    except FileReadError:
        return None


def _cut(text: str | None, limit: int = MAX_SHOWN_CHARS) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return text[:limit] + f"… ({len(text) - limit:,} more characters)"


def _reasonings(record: RunRecord, fs: FileSystem) -> dict[str, str]:
    """Each grader's reasoning by name, from grading.json (the index row has none)."""
    text = _side_text(record.grading_file, fs)
    if text is None:
        return {}
    try:
        grading = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    found: dict[str, str] = {}
    for grader in _list(_object(grading).get("graders")):
        if isinstance(grader, dict) and isinstance(grader.get("name"), str):
            reasoning = grader.get("reasoning")
            if isinstance(reasoning, str):
                found.setdefault(grader["name"], reasoning)
    return found


def is_stale(record: RunRecord, case: dict[str, Any], fs: FileSystem) -> bool:
    """Whether the prompt the test sends now differs from what the run sent (its `input.md`):
    the run's target formatted the test in one of the two modes; the input matches neither
    when the prompt changed. A run that recorded no input sent none."""
    recorded = _side_text(record.input_file, fs) or ""
    now = [recorded_input(case[m]) for m in ("lm", "agent") if isinstance(case.get(m), dict)]
    return recorded not in now


def prompt_changes(record: RunRecord, case: dict[str, Any], fs: FileSystem, limit: int = 8) -> list[str]:
    """What changed since the run, as diff lines (`-` what the run sent, `+` what the test sends
    now; the closer of the two modes), at most `limit` of them."""
    recorded = (_side_text(record.input_file, fs) or "").splitlines()
    best: list[str] | None = None
    for mode in ("lm", "agent"):
        if not isinstance(case.get(mode), dict):
            continue
        now = recorded_input(case[mode]).splitlines()
        lines = [
            line
            for line in difflib.unified_diff(recorded, now, lineterm="", n=0)
            if not line.startswith(("---", "+++", "@@"))
        ]
        if best is None or len(lines) < len(best):
            best = lines
    return (best or [])[:limit]


def last_run_json(record: RunRecord | None, case: dict[str, Any], fs: FileSystem, repo_root: str) -> Any:
    """`last_run` of a preview case (None when no run recorded the test)."""
    if record is None:
        return None
    reasonings = _reasonings(record, fs)
    run = os.path.relpath(record.run_dir, repo_root).replace(os.sep, "/")
    return {
        "run": run,
        "timestamp": record.timestamp,
        "target": record.target,
        "status": record.status,
        "score": _js_number(record.score),
        "graders": [
            {
                "name": g.name,
                "type": g.type,
                "verdict": g.verdict,
                "score": _js_number(g.score),
                "reasoning": _cut(g.reasoning if g.reasoning else reasonings.get(g.name or "", None)),
            }
            for g in record.graders
        ],
        "answer": _cut(_side_text(record.answer_file, fs)),
        "error": _cut(record.error),
        "stale": is_stale(record, case, fs),
    }


def add_last_runs(result: dict[str, Any], results: RunResults, fs: FileSystem, repo_root: str) -> None:
    """Each case of a 4.x preview object gets `last_run` (its file is `result["file"]`,
    repo-relative as the runtime records it)."""
    eval_path = _portable(str(result.get("file", "")))
    for case in result.get("cases", []):
        test_id = case.get("id")
        record = results.latest(eval_path, test_id) if isinstance(test_id, str) else None
        case["last_run"] = last_run_json(record, case, fs, repo_root)


def _js_number(value: float | None) -> float | int | None:
    """A score as JSON.stringify prints it (1, not 1.0)."""
    if value is not None and value.is_integer() and abs(value) < 1e21:
        return int(value)
    return value


# how a verdict is marked wherever one is shown (preview text, lens, hover)
STATUS_MARKS = {"passed": "✓", "failed": "✗", "error": "⚠"}


def describe_last_run(last_run: Any) -> str | None:
    """One line for people: `last run: ✓ passed 1.00 · default · 2026-11-29T04:24:18.035Z`, and
    `(stale: the prompt changed since this run)` when it did."""
    if not isinstance(last_run, dict):
        return None
    score = last_run.get("score")
    parts = [f"{STATUS_MARKS.get(str(last_run.get('status')), '?')} {last_run.get('status')}"]
    if isinstance(score, int | float):
        parts[0] += f" {score:.2f}"
    for name in ("target", "timestamp"):
        if last_run.get(name):
            parts.append(str(last_run[name]))
    line = "last run: " + " · ".join(parts)
    if last_run.get("stale"):
        line += " (stale: the prompt changed since this run)"
    return line


class ResultsCache:
    """The rows under some folders, read again only when a run folder or an index changed
    (the runs roots, each experiment folder and each index are looked at, at most once a
    `recheck_seconds`): what the editor asks for each lens and hover."""

    def __init__(self, recheck_seconds: float = 1.0) -> None:
        self.recheck_seconds = recheck_seconds
        self._held: dict[tuple[str, ...], tuple[float, tuple[Any, ...], RunResults]] = {}
        self._lock = threading.Lock()

    def get(self, folders: Sequence[str], fs: FileSystem) -> RunResults:
        key = tuple(dict.fromkeys(os.path.abspath(f) for f in folders))
        now = time.monotonic()
        with self._lock:
            held = self._held.get(key)
        if held is not None and now - held[0] < self.recheck_seconds:
            return held[2]
        roots = runs_roots(key)
        stamp = _stamp(roots, fs)
        unchanged = held is not None and held[1] == stamp
        results = held[2] if held is not None and unchanged else read_runs(run_folders(roots, fs), fs)
        with self._lock:
            self._held[key] = (now, stamp, results)
            while len(self._held) > 16:
                self._held.pop(next(iter(self._held)))
        return results

    def clear(self) -> None:
        with self._lock:
            self._held.clear()


def runs_stamp(folders: Sequence[str], fs: FileSystem) -> tuple[Any, ...]:
    """What changes when a run under these folders is added, removed or rewritten."""
    return _stamp(runs_roots(folders), fs)


def _stamp(roots: Sequence[str], fs: FileSystem) -> tuple[Any, ...]:
    """What changes when a run is added, removed or rewritten."""
    parts: list[Any] = []
    for root in roots:
        parts.append(_mtime(root, fs))
        for experiment in _subfolders(root, fs):
            parts.append((experiment, _mtime(experiment, fs)))
            for run in _subfolders(experiment, fs):
                parts.append((run, _mtime(os.path.join(run, INDEX_NAME), fs)))
    return tuple(parts)


def _mtime(path: str, fs: FileSystem) -> tuple[int, int] | None:
    if not fs.is_allowed(path):
        return None
    try:
        info = fs.stat(path)
    except (OSError, ValueError):
        return None
    return (info.st_mtime_ns, info.st_size)


def ago(timestamp: str, now: float | None = None) -> str | None:
    """`3 min ago` for an ISO timestamp (None when it is not one)."""
    from datetime import datetime

    try:
        then = datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
    seconds = max(0.0, (time.time() if now is None else now) - then)
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return "just now"


# The editor's: run folders per (cwd, repo root), dropped when the client reports a changed index.
EDITOR_RESULTS = ResultsCache()
