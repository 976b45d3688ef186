"""The version files CI installs from stay in step with pyproject.toml's declared ranges:
`.ci/constraints-lowest.txt` pins exactly each lower bound, and the extension's bundle pins
(`vscode-client/bundle-constraints.txt`) fall inside every range."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]


def _runtime_requirements() -> dict[str, Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    reqs = [Requirement(text) for text in project["dependencies"]]
    return {canonicalize_name(r.name): r for r in reqs}


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\s*([A-Za-z0-9_.-]+)\s*==\s*([^\s#;]+)", line)
        if match:
            pins[canonicalize_name(match.group(1))] = match.group(2)
    return pins


def test_lowest_constraints_are_exactly_the_declared_lower_bounds():
    lower = {}
    for name, req in _runtime_requirements().items():
        bounds = [spec.version for spec in req.specifier if spec.operator == ">="]
        assert len(bounds) == 1, f"{name}: declare one lower bound (>=) so CI can test it"
        lower[name] = bounds[0]
    pinned = _pins(REPO / ".ci" / "constraints-lowest.txt")
    # a bound written "2.1" is installed as 2.1.0: compare as versions
    from packaging.version import Version

    assert {n: Version(v) for n, v in pinned.items()} == {n: Version(v) for n, v in lower.items()}


def test_bundle_pins_satisfy_the_declared_ranges():
    pinned = _pins(REPO / "vscode-client" / "bundle-constraints.txt")
    for name, req in _runtime_requirements().items():
        assert name in pinned, f"{name} is a dependency but the extension's bundle does not pin it"
        assert req.specifier.contains(pinned[name], prereleases=True), (
            f"bundle pins {name}=={pinned[name]}, outside pyproject's {req.specifier}"
        )
