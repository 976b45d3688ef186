"""The live AgentV 4.42.4 oracle for tests: find it, run driver.mjs over many repos in one node
process, and compare what it recorded with our `preview_v4` on the same files.

The runtime is the published npm packages, installed by tests/oracle_v4/install.sh into a
folder whose node_modules `AGENTV4_MODULES` names. Without it (or without node) the tests that
need it skip, saying why.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "driver.mjs"

# The fields compared per loaded test (the same as /work/shared/golden-v4/compare.py), and the
# grader request once our preview produces it.
CASE_FIELDS = (
    "id",
    "conversation_id",
    "criteria",
    "expected_output",
    "reference_answer",
    "file_paths",
    "lm",
    "agent",
)
JUDGE_FIELD = "judge_prompt"


def oracle_unavailable() -> str | None:
    """Why the live oracle cannot run here, or None when it can."""
    modules = os.environ.get("AGENTV4_MODULES")
    if not modules:
        return (
            "AGENTV4_MODULES is not set (run tests/oracle_v4/install.sh DIR and point it at DIR/node_modules)"
        )
    if not (Path(modules) / "@agentv" / "core" / "dist" / "index.js").is_file():
        return f"AGENTV4_MODULES={modules} holds no @agentv/core (run tests/oracle_v4/install.sh)"
    if shutil.which("node") is None:
        return "node is not on PATH"
    return None


def run_driver_batch(
    entries: Sequence[tuple[Path, Sequence[str]]], timeout: float = 1800
) -> list[dict[str, Any]]:
    """driver.mjs batch over `(repo root, [eval files relative to it])`: one record per file, in order."""
    with tempfile.TemporaryDirectory(prefix="agentv4-batch-") as scratch:
        manifest = Path(scratch) / "manifest.json"
        out = Path(scratch) / "out.jsonl"
        manifest.write_text(
            json.dumps([{"root": str(root), "files": list(files)} for root, files in entries])
        )
        proc = subprocess.run(
            ["node", str(DRIVER), "batch", str(manifest), str(out)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"},
        )
        if proc.returncode != 0:
            raise RuntimeError(f"driver.mjs batch failed ({proc.returncode}): {proc.stderr[-2000:]}")
        return [
            json.loads(line) for line in out.read_text(encoding="utf-8").split("\n") if line.strip()
        ]  # not splitlines: U+2028 stays raw in JSON


def scrub(value: Any, root: Path) -> Any:
    """The repo's absolute path (and its parents) as <ROOT> markers, like the driver does."""
    if isinstance(value, str):
        subs = [
            (str(root), "<ROOT>"),
            (str(root.parent), "<ROOT>/.."),
            (str(root.parent.parent), "<ROOT>/../.."),
            (str(root.parent.parent.parent), "<ROOT>/../../.."),
        ]
        for old, new in subs:
            value = value.replace(old, new)
        return value
    if isinstance(value, list):
        return [scrub(v, root) for v in value]
    if isinstance(value, dict):
        return {k: scrub(v, root) for k, v in value.items()}
    return value


@contextmanager
def working_directory(path: Path) -> Iterator[None]:
    saved = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(saved)


def our_preview(root: Path, eval_file: str) -> dict[str, Any]:
    """`agentv-lsp preview FILE --json --agentv 4` run in the repo, in this process."""
    from agentv_lsp.engine.files import FileSystem
    from agentv_lsp.formats.v4.preview import preview_v4

    with working_directory(root):
        return preview_v4(str(root / eval_file), str(root), str(root), FileSystem())


def our_check(root: Path, eval_file: str) -> list[dict[str, Any]]:
    """`agentv-lsp check FILE --format json --agentv 4` run in the repo, in this process:
    each diagnostic's `path` (AgentV's location) and `severity`."""
    from agentv_lsp.engine.files import FileSystem
    from agentv_lsp.formats.v2.check import CheckOptions
    from agentv_lsp.formats.v4.check import check_v4_document

    fs = FileSystem()
    path = str(root / eval_file)
    with working_directory(root):
        report = check_v4_document(
            path, fs.read_document(path), CheckOptions(str(root), str(root), fs, runtime="4"), as_eval=True
        )
    return [
        {"path": d.path, "locations": d.locations, "severity": d.severity, "message": d.message}
        for d in report.diagnostics
    ]


def compare_check(record: dict[str, Any], diagnostics: list[dict[str, Any]]) -> list[str]:
    """compare.py's check rules: every location validate reported has a diagnostic there; a clean
    file gets no error, nor does any file the runtime loads and validate passes (README's rule);
    a file the runtime cannot load gets an error; a runtime message that
    validate did not report gets at least a warning."""
    paths = {location for d in diagnostics for location in d.get("locations", (d["path"],))}
    errors = [d for d in diagnostics if d["severity"] == "error"]
    validation = record.get("validation") or {}
    issues = validation.get("issues", [])
    problems = [
        f"no diagnostic at {e['location']} (validate: {e['severity']} {e['message'][:200]!r})"
        for e in issues
        if e.get("location") and e["location"] not in paths
    ]
    clean = (
        record["load_error"] is None
        and not record["warnings"]
        and not issues
        and validation.get("exit_code") == 0
    )
    if clean and errors:
        problems.append(f"false error at {errors[0]['path']!r}: {errors[0]['message'][:200]}")
    # README's severity rule: `error` only where the runtime cannot load the file or validate fails it
    runs = record["load_error"] is None and validation.get("exit_code") == 0
    if runs and errors and not clean:
        problems.append(
            f"error on a file AgentV loads and validate passes, at {errors[0]['path']!r}: {errors[0]['message'][:200]}"
        )
    if record["load_error"] is not None and not errors:
        problems.append(f"the runtime cannot load it ({record['load_error'][:200]!r}), yet no error")
    if (
        record["warnings"]
        and not issues
        and not any(d["severity"] in ("error", "warning") for d in diagnostics)
    ):
        problems.append(f"the runtime said {runtime_messages(record)[0][:200]!r} but no warning was reported")
    return problems


def loader_contradictions(record: dict[str, Any], diagnostics: list[dict[str, Any]], text: str) -> list[str]:
    """Check findings that contradict what the runtime loaded (issue 34: check and the loader read
    one value): the merge key `<<` called a key of its own where the file quotes none, or a test
    the runtime loaded, with no skip message about it, said to be skipped."""
    loaded = {case["id"] for case in record.get("cases", []) if isinstance(case.get("id"), str)}
    skipped = " ".join(w for w in record["warnings"] if "Skipping" in w or "skipping" in w)
    quoted_merge_key = '"<<"' in text or "'<<'" in text
    problems = []
    for d in diagnostics:
        message = d["message"]
        if "'<<'" in message and not quoted_merge_key:
            problems.append(f"the merge key read as a key at {d['path']!r}: {message[:200]}")
        if "skips it" in message:
            named = [test_id for test_id in loaded if f"'{test_id}'" in message and test_id not in skipped]
            if named:
                problems.append(f"test {named[0]!r} loaded, yet at {d['path']!r}: {message[:200]}")
    return problems


def runtime_messages(record: dict[str, Any]) -> list[str]:
    return [
        w.split(": ", 1)[1] if w.startswith(("warn: ", "error: ", "log: ", "info: ")) else w
        for w in record["warnings"]
    ]


def first_difference(want: Any, got: Any, where: str = "") -> str:
    if type(want) is not type(got):
        return f"{where}: runtime {json.dumps(want, ensure_ascii=False)[:300]} / ours {json.dumps(got, ensure_ascii=False)[:300]}"
    if isinstance(want, dict):
        for key in want:
            if key not in got:
                return f"{where}.{key}: missing in ours"
            found = first_difference(want[key], got[key], f"{where}.{key}")
            if found:
                return found
        return ""
    if isinstance(want, list):
        if len(want) != len(got):
            return (
                f"{where}: runtime has {len(want)} items, ours {len(got)}: runtime "
                f"{json.dumps(want, ensure_ascii=False)[:300]} / ours {json.dumps(got, ensure_ascii=False)[:300]}"
            )
        for i, (a, b) in enumerate(zip(want, got, strict=True)):
            found = first_difference(a, b, f"{where}[{i}]")
            if found:
                return found
        return ""
    if want != got:
        if isinstance(want, str):
            i = next(
                (k for k, (x, y) in enumerate(zip(want, got, strict=False)) if x != y),
                min(len(want), len(got)),
            )
            lo = max(0, i - 60)
            return (
                f"{where}: differs at char {i}: runtime {json.dumps(want[lo : i + 80], ensure_ascii=False)} / "
                f"ours {json.dumps(got[lo : i + 80], ensure_ascii=False)}"
            )
        return f"{where}: runtime {json.dumps(want, ensure_ascii=False)} / ours {json.dumps(got, ensure_ascii=False)}"
    return ""


@dataclass
class Difference:
    where: str  # "load_error", "warnings", "cases", "case t1"
    detail: str


def compare_with_runtime(record: dict[str, Any], ours: Any, root: Path) -> list[Difference]:
    """What differs between the runtime's record of a file and our preview of it (compare.py's rules)."""
    if "driver_error" in record:
        return [Difference("driver", record["driver_error"][:500])]
    if not isinstance(ours, dict):
        return [Difference("preview", f"no JSON object: {ours!r:.200}")]
    ours = scrub(ours, root)
    found: list[Difference] = []
    if (record["load_error"] is None) != (ours.get("load_error") is None):
        found.append(
            Difference(
                "load_error", f"runtime {record['load_error']!r:.300} / ours {ours.get('load_error')!r:.300}"
            )
        )
    detail = first_difference(runtime_messages(record), ours.get("warnings", "<absent>"), "warnings")
    if detail:
        found.append(Difference("warnings", detail))
    cases = ours.get("cases") or []
    if len(cases) != len(record["cases"]):
        found.append(
            Difference(
                "cases",
                f"runtime loads {len(record['cases'])} tests {[c['id'] for c in record['cases']]}, "
                f"ours {len(cases)} {[c.get('id') if isinstance(c, dict) else c for c in cases]}",
            )
        )
    for i, want in enumerate(record["cases"]):
        have = cases[i] if i < len(cases) else None
        if not isinstance(have, dict):
            continue
        fields = [*CASE_FIELDS, JUDGE_FIELD] if JUDGE_FIELD in have else list(CASE_FIELDS)
        detail = first_difference(
            {k: want[k] for k in fields}, {k: have.get(k, "<absent>") for k in fields}, f"case {want['id']}"
        )
        if detail:
            found.append(Difference(f"case {want['id']}", detail))
    return found


def write_repo(base: Path, files: dict[str, str | bytes]) -> Path:
    """The files under base/…/repo (three levels deep, as compare.py stages) with a .git/ folder."""
    root = base / "a" / "b" / "repo"
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8", "surrogatepass"))
    (root / ".git").mkdir(parents=True, exist_ok=True)
    return root
