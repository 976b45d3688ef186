"""Texts the YAML layer's own tests read: a generated 4.x workload and the repository's
recorded texts (the YAML suite's inputs, the v2 and 4.x golden folders)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def workload_texts(tmp: Path, *, cases: int, files: int, seed: int) -> list[str]:
    """The eval files `benchmarks/make_workload_v4.py` generates into `tmp`."""
    spec = importlib.util.spec_from_file_location(
        "make_workload_v4", ROOT / "benchmarks" / "make_workload_v4.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.generate(tmp, cases=cases, files=files, seed=seed, no_tool=False)
    return [p.read_text(encoding="utf-8") for p in sorted((tmp / "evals").rglob("*.yaml"))]


def repository_texts() -> list[str]:
    paths = sorted((ROOT / "tests" / "yaml_suite" / "data").glob("*/in.yaml"))
    for folder in ("golden", "golden_v4"):
        paths += sorted((ROOT / "tests" / folder).rglob("*.y*ml"))
    texts = []
    for path in paths:
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    return texts
