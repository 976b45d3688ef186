"""Coverage-guided fuzzing (atheris, libFuzzer) of the YAML-with-positions layer and the
whole check of an eval file. Any exception is a crash: `parse_yaml` never raises (bad YAML
is `doc.error`), and `check_document` turns every problem into diagnostics.

Run: python tests/reliability/fuzz_atheris.py [CORPUS_DIR ...] [-runs=N] [-max_total_time=S]
(`test_atheris.py` runs it for a bounded time, seeded with the golden eval files.)
"""

from __future__ import annotations

import sys
import tempfile

import atheris

with atheris.instrument_imports(include=["agentv_lsp"]):
    from agentv_lsp.engine.files import FileSystem
    from agentv_lsp.formats.v2.check import CheckOptions, check_document
    from agentv_lsp.yamlpos import parse_yaml

ROOT = tempfile.mkdtemp(prefix="agentv-fuzz-")  # an empty repository: file lookups find nothing
OPTS = CheckOptions(repo_root=ROOT, cwd=ROOT, fs=FileSystem(max_bytes=64 * 1024, allowed_roots=(ROOT,)))
HEAD = "$schema: agentv-eval-v2\nevalcases:\n"


def one_input(data: bytes) -> None:
    provider = atheris.FuzzedDataProvider(data)
    with_head = provider.ConsumeBool()
    text = provider.ConsumeUnicodeNoSurrogates(len(data))
    doc = parse_yaml(text)
    if doc.error is None and doc.root is not None:
        doc.span_of(("evalcases", 0, "input_messages", 0, "content"))
    check_document(f"{ROOT}/fuzz.eval.yaml", HEAD + text if with_head else text, OPTS, kind="eval")


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
