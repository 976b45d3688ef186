"""Random eval files for differential testing against the AgentV 4.42.4 runtime (not a test).

    python gen_graders.py SEED OUT_FOLDER     # then record OUT_FOLDER with the golden-v4 driver.mjs

The x-fuzz-* case folders were made this way; recorded goldens stay valid whatever this script becomes.
"""

import os
import random
import shutil
import sys
from pathlib import Path

import yaml

random.seed(int(sys.argv[1]))
out = sys.argv[2]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out + "/evals/p", exist_ok=True)
Path(f"{out}/evals/p/ok.md").write_text(
    "Judge {{ output }} vs {{ expected_output }} {{ criteria }} {{ nope }}\n"
)
Path(f"{out}/evals/p/bad.md").write_text("No vars\n")
Path(f"{out}/evals/p/run.py").write_text("print(1)\n")
types = [
    "contains",
    "contains-any",
    "contains_all",
    "icontains",
    "icontains-any",
    "starts-with",
    "ends-with",
    "regex",
    "is-json",
    "equals",
    "llm-grader",
    "llm_grader",
    "llm-judge",
    "code-grader",
    "code_judge",
    "rubrics",
    "rubric",
    "composite",
    "tool-trajectory",
    "field-accuracy",
    "latency",
    "cost",
    "token-usage",
    "execution-metrics",
    "skill-trigger",
    "custom-x",
    5,
    None,
    "inline-assert",
]
vals = [
    "x",
    "",
    3,
    ["a", 2],
    [],
    None,
    True,
    -1,
    0.5,
    1.5,
    {"a": 1},
    "file://p/ok.md",
    "file://p/bad.md",
    "file://p/none.md",
    "p/run.py",
]
keys = [
    "value",
    "name",
    "weight",
    "required",
    "min_score",
    "negate",
    "prompt",
    "command",
    "script",
    "cwd",
    "target",
    "mode",
    "expected",
    "minimums",
    "fields",
    "threshold",
    "budget",
    "max_total",
    "max_tool_calls",
    "skill",
    "criteria",
    "rubrics",
    "aggregator",
    "assertions",
    "flags",
    "preprocessors",
    "args_match",
    "config",
    "max_steps",
    "temperature",
]


def val(k):
    if k == "aggregator":
        return random.choice(
            [
                {"type": "weighted_average"},
                {"type": "threshold", "threshold": random.choice([0.5, 2])},
                {"type": "code-grader"},
                {"type": "llm_judge"},
                {"type": "llm-grader", "prompt": random.choice(vals)},
                3,
            ]
        )
    if k in ("assertions", "criteria", "rubrics", "expected", "fields"):
        return [
            entry(1)
            if random.random() < 0.5
            else random.choice(
                [
                    *vals,
                    {"id": "r", "outcome": "o", "operator": "x"},
                    {"tool": "t", "args": "any"},
                    {"path": "p", "match": "exact"},
                    {"score_ranges": {0: "a", 5: "b"}},
                ]
            )
            for _ in range(random.randint(0, 3))
        ]
    if k == "prompt" and random.random() < 0.2:
        return {"command": random.choice([["python", "p/run.py"], ["python", "p/none.py"], [], "x"])}
    if k == "preprocessors":
        return random.choice(
            [
                [{"type": "pdf", "command": ["x", "p/run.py"]}],
                [{"type": ""}],
                3,
                [{"type": "pdf", "command": ["p/none.py"]}],
            ]
        )
    if k == "mode":
        return random.choice(["any_order", "in_order", "exact", "weird"])
    return random.choice(vals)


def entry(depth=0):
    r = random.random()
    if r < 0.15:
        return random.choice(["A criterion", "  ", "", 7])
    e = {"type": random.choice(types)}
    for k in random.sample(keys, random.randint(0, 5)):
        e[k] = val(k) if depth == 0 or k != "assertions" else "x"
    return e


for n in range(5):
    suite = {"description": "graders", "tests": []}
    if random.random() < 0.3:
        suite["assertions"] = [entry() for _ in range(2)]
    for i in range(random.randint(1, 5)):
        t = {"id": f"t{i}", "input": "Q?", "assertions": [entry() for _ in range(random.randint(0, 5))]}
        if random.random() < 0.2:
            t["rubrics"] = [
                random.choice(["r", {"outcome": "o", "operator": "bad"}, {"score_ranges": {0: "x"}}, 3])
            ]
        if random.random() < 0.1:
            t["evaluator"] = random.choice(["llm-grader", "fancy", 3])
        suite["tests"].append(t)
    Path(f"{out}/evals/g{n}.eval.yaml").write_text(yaml.safe_dump(suite, sort_keys=False))
