"""Hostile eval files by family, each sized by `n`: what a contributor's pull request can put
in a repository to make the checker slow (issue 15). Used by the growth-ratio tests and by
`benchmarks/bench_reliability.py --hostile`, which measures each family at n and 2n.

Each family returns `{relative path: text}` (most are one file; `many-files` is a folder).
"""

from __future__ import annotations

from collections.abc import Callable

Files = dict[str, str]

V2 = "$schema: agentv-eval-v2\n"
V2_CASE = (
    "evalcases:\n  - id: c1\n    outcome: ok\n    input_messages:\n      - role: user\n        content: hi\n"
)
V4_TEST = "tests:\n  - id: t1\n    input: hi\n    criteria: ok\n"


def _one(name: str, text: str) -> Files:
    return {name: text}


def unknown_top_keys(n: int) -> Files:
    return _one("keys.yaml", V2 + "".join(f"k{i}: v\n" for i in range(n)) + V2_CASE)


def unknown_top_keys_v4(n: int) -> Files:
    return _one("keys.eval.yaml", "".join(f"k{i}: v\n" for i in range(n)) + V4_TEST)


def anchors_and_aliases(n: int) -> Files:
    anchors = "".join(f"a{i}: &a{i} v{i}\n" for i in range(n))
    return _one("alias.yaml", V2 + anchors + "b: [" + ", ".join(f"*a{i}" for i in range(n)) + "]\n" + V2_CASE)


def aliased_mappings(n: int) -> Files:
    anchors = "".join(f"m{i}: &m{i} {{x: {i}, y: [a, b]}}\n" for i in range(n))
    return _one("aliasmap.yaml", V2 + anchors + "b:\n" + "".join(f"  - *m{i}\n" for i in range(n)) + V2_CASE)


def alias_chain(n: int) -> Files:
    """Each anchor holds an alias of the one before: alias weights computed along the chain."""
    chain = "c0: &c0 [x]\n" + "".join(f"c{i}: &c{i} [*c{i - 1}]\n" for i in range(1, n))
    return _one("chain.yaml", V2 + chain + V2_CASE)


def int_string_key_collisions(n: int) -> Files:
    return _one("intstr.yaml", V2 + "".join(f'{i}: a\n"{i}": b\n' for i in range(n)) + V2_CASE)


def huge_integer(n: int) -> Files:
    return _one("bigint.yaml", V2 + "x: " + "9" * n + "\n" + V2_CASE)


def huge_numbers_v4(n: int) -> Files:
    """An enormous integer, hex number and exponent where the runtime reads numbers."""
    digits = "9" * (n // 3)
    return _one(
        "bignum.eval.yaml",
        "tests:\n  - id: t1\n    input: hi\n    criteria: ok\n    assertions:\n"
        f"      - type: contains\n        value: x\n        weight: {digits}\n"
        f"      - type: contains\n        value: y\n        weight: 0x{'f' * (n // 3)}\n"
        f"      - type: contains\n        value: z\n        weight: 1e{digits[:7]}\n",
    )


def many_cases_with_errors(n: int) -> Files:
    cases = "".join(
        f"  - id: c{i}\n    outcome: 1\n    extra{i}: x\n    input_messages:\n      - role: robot\n        content: hi\n"
        for i in range(n)
    )
    return _one("cases.yaml", V2 + "evalcases:\n" + cases)


def many_tests_with_errors_v4(n: int) -> Files:
    tests = "".join(
        f"  - id: t{i}\n    input: hi\n    criteria: ok\n    extra{i}: x\n"
        f"    assertions:\n      - type: no-such-grader\n      - type: contains\n"
        for i in range(n)
    )
    return _one("tests.eval.yaml", "tests:\n" + tests)


def many_distinct_errors(n: int) -> Files:
    kinds = [
        "    outcome: ok\n    input_messages: 5\n",
        "    outcome: [1]\n    input_messages:\n      - role: user\n        content: {a: 1}\n",
        "    input_messages:\n      - role: user\n        content: hi\n",
        "    outcome: ok\n    input_messages:\n      - content: hi\n",
        "    outcome: ok\n    input_messages:\n      - role: user\n        content:\n          - type: file\n            value: nope.md\n",
        "    outcome: ok\n    execution: {evaluators: [{type: mystery}]}\n    input_messages:\n      - role: user\n        content: hi\n",
    ]
    cases = "".join(f"  - id: c{i % 7}\n{kinds[i % len(kinds)]}" for i in range(n))
    return _one("kinds.yaml", V2 + "evalcases:\n" + cases)


def long_flow_sequence(n: int) -> Files:
    return _one("flowseq.yaml", V2 + "x: [" + ", ".join(str(i) for i in range(n)) + "]\n" + V2_CASE)


def long_flow_mapping(n: int) -> Files:
    return _one("flowmap.yaml", V2 + "x: {" + ", ".join(f"k{i}: {i}" for i in range(n)) + "}\n" + V2_CASE)


def huge_scalar(n: int) -> Files:
    return _one(
        "scalar.yaml",
        V2 + "evalcases:\n  - id: c1\n    outcome: ok\n    input_messages:\n"
        "      - role: user\n        content: " + "word " * (n // 5) + "\n",
    )


def huge_key(n: int) -> Files:
    return _one("hugekey.yaml", V2 + "k" * n + ": v\n" + V2_CASE)


def many_messages(n: int) -> Files:
    messages = "".join(
        f"      - role: {('user', 'assistant')[i % 2]}\n        content: m{i}\n" for i in range(n)
    )
    return _one(
        "messages.yaml", V2 + "evalcases:\n  - id: c1\n    outcome: ok\n    input_messages:\n" + messages
    )


def many_duplicate_ids(n: int) -> Files:
    cases = "".join(
        "  - id: same\n    outcome: ok\n    input_messages:\n      - role: user\n        content: hi\n"
        for _ in range(n)
    )
    return _one("dupids.yaml", V2 + "evalcases:\n" + cases)


def merge_keys_v4(n: int) -> Files:
    base = "base: &base\n  criteria: ok\n  input: hi\n"
    tests = "".join(f"  - <<: *base\n    id: t{i}\n" for i in range(n))
    return _one("merge.eval.yaml", base + "tests:\n" + tests)


def nested_flow_text(size: int, depth: int) -> str:
    """About `size` characters of test lines `- [[…x…]]`, `depth` deep, under `%YAML 1.2` (which
    sends the text to the exact reader, PyYAML's pure-Python stages: issue 34)."""
    head = "%YAML 1.2\n---\ntests:\n"
    item = "  - " + "[" * depth + "x" + "]" * depth + "\n"
    return head + item * max(1, (size - len(head)) // len(item))


def deep_flow_exact_v4(n: int) -> Files:
    """20 n characters of flow sequences n / 5 deep (to 400), read by the exact reader: size and
    depth grow together, so a cost of size x depth (PyYAML's simple-key bookkeeping) shows."""
    return _one("deepflow.eval.yaml", nested_flow_text(n * 20, min(400, max(2, n // 5))))


def many_files(n: int) -> Files:
    """n / 50 files of 50 erroneous cases each."""
    per = 50
    return {f"evals/f{j}.yaml": many_cases_with_errors(per)["cases.yaml"] for j in range(max(1, n // per))}


FAMILIES: dict[str, Callable[[int], Files]] = {
    "unknown-top-keys": unknown_top_keys,
    "unknown-top-keys-v4": unknown_top_keys_v4,
    "anchors-and-aliases": anchors_and_aliases,
    "aliased-mappings": aliased_mappings,
    "alias-chain": alias_chain,
    "int-string-key-collisions": int_string_key_collisions,
    "huge-integer": huge_integer,
    "huge-numbers-v4": huge_numbers_v4,
    "many-cases-with-errors": many_cases_with_errors,
    "many-tests-with-errors-v4": many_tests_with_errors_v4,
    "many-distinct-errors": many_distinct_errors,
    "long-flow-sequence": long_flow_sequence,
    "long-flow-mapping": long_flow_mapping,
    "huge-scalar": huge_scalar,
    "huge-key": huge_key,
    "many-messages": many_messages,
    "many-duplicate-ids": many_duplicate_ids,
    "merge-keys-v4": merge_keys_v4,
    "deep-flow-exact-v4": deep_flow_exact_v4,
    "many-files": many_files,
}


def size_of(files: Files) -> int:
    return sum(len(text.encode()) for text in files.values())
