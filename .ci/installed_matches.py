"""Fail unless every `name==version` pin of a constraints file is what this environment has.

pip treats constraints as upper limits of choice, not promises (a pin of a package nothing
requires is silently ignored), so the environments that claim to test exact versions check it."""

from __future__ import annotations

import re
import sys
from importlib.metadata import PackageNotFoundError, version


def main(path: str) -> int:
    wrong = []
    for line in open(path, encoding="utf-8"):
        pin = re.match(r"\s*([A-Za-z0-9_.-]+)\s*==\s*([^\s#;]+)", line)
        if pin is None:
            continue
        name, wanted = pin.groups()
        try:
            have = version(name)
        except PackageNotFoundError:
            have = "not installed"
        if have != wanted:
            wrong.append(f"{name}: pinned {wanted}, installed {have}")
    for problem in wrong:
        print(f"{path}: {problem}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
