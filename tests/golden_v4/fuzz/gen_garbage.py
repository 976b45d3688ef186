"""Random eval files for differential testing against the AgentV 4.42.4 runtime (not a test).

    python gen_garbage.py SEED OUT_FOLDER [COUNT]   # then record OUT_FOLDER with the golden-v4 driver.mjs

Any AgentV key with any value at any depth: wrong types everywhere.
"""

import random
import sys
from pathlib import Path

import yaml

random.seed(int(sys.argv[1]))
out = Path(sys.argv[2])
count = int(sys.argv[3]) if len(sys.argv) > 3 else 12
KEYS = [
    *("id", "input", "criteria", "expected_output", "assertions", "assert", "input_files", "vars"),
    *("execution", "rubrics", "turns", "workspace", "evaluator", "conversation_id", "metadata", "role"),
    *("content", "type", "value", "name", "prompt", "command", "script", "cwd", "weight", "required"),
    *("min_score", "aggregator", "mode", "expected", "fields", "score_ranges", "outcome", "operator"),
    *("include", "preprocessors", "tool_calls", "skip_defaults", "evaluators"),
]
LEAVES = [
    *(None, True, False, 0, -1, 1.5, "", "x", "file://a.md", "a.md", "{{ v }}", "${{ X_UNSET_Q }}"),
    *("/", ".", "..", "include", [], {}, "user", "system", "assistant", "file", "text", "image"),
    *("contains", "llm-grader", "rubrics"),
]


def value(depth: int = 0) -> object:
    r = random.random()
    if depth > 4 or r < 0.35:
        return random.choice(LEAVES)
    if r < 0.65:
        return [value(depth + 1) for _ in range(random.randint(0, 4))]
    return {random.choice(KEYS): value(depth + 1) for _ in range(random.randint(0, 5))}


(out / "evals").mkdir(parents=True, exist_ok=True)
(out / "evals" / "a.md").write_text("A\n")
for i in range(count):
    suite = {random.choice(KEYS): value() for _ in range(random.randint(0, 3))}
    tests = []
    for _ in range(random.randint(0, 4)):
        test = {random.choice(KEYS): value() for _ in range(random.randint(0, 8))}
        if random.random() < 0.6:
            test |= {"id": f"t{i}", "input": value(), "criteria": "c"}
        tests.append(test)
    suite["tests"] = tests
    (out / "evals" / f"t{i}.eval.yaml").write_text(yaml.safe_dump(suite))
