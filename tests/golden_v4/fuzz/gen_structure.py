"""Random eval files for differential testing against the AgentV 4.42.4 runtime (not a test).

    python gen_structure.py SEED OUT_FOLDER     # then record OUT_FOLDER with the golden-v4 driver.mjs

Suites whose tests come from cases files, directories, file:// references and globs, with
vars, ${{ ENV }} references, merge keys, configs and suite defaults.
"""

import json
import os
import random
import shutil
import sys
from pathlib import Path

import yaml

random.seed(int(sys.argv[1]))
out = sys.argv[2]
shutil.rmtree(out, ignore_errors=True)


def write(rel: str, text: str) -> None:
    path = Path(out) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


texts = ["Hi {{ who }}", "${{ UNSET_FUZZ_VAR }}x", "plain", "", "  ", "{{ obj }}", "{{ obj.k }}"]


def case(i: int) -> dict:
    c: dict = {}
    if random.random() < 0.9:
        c["id"] = random.choice([f"c{i}", f"c{i}", 5, None, ""])
    if random.random() < 0.7:
        c["criteria"] = random.choice(texts)
    if random.random() < 0.9:
        c["input"] = random.choice([*texts, [{"role": "user", "content": random.choice(texts)}]])
    if random.random() < 0.4:
        c["vars"] = random.choice([{"who": "Ada", "obj": {"k": 1}}, {"who": 3}, "notobj"])
    if random.random() < 0.2:
        c["expected_output"] = random.choice(texts)
    if random.random() < 0.15:
        c["input_files"] = ["ctx.md", 1]
    return c


write("evals/ctx.md", "Context\r\n")
if random.random() < 0.5:
    write(
        ".agentv/config.yaml",
        random.choice(
            ["eval_patterns: x\n", "execution: {verbose: 1}\n", "[1]\n", "required_version: '4'\n"]
        ),
    )
for n in range(4):
    suite: dict = {"description": f"structure {n}"}
    if random.random() < 0.3:
        suite["input"] = random.choice(texts)
    if random.random() < 0.3:
        suite["input_files"] = random.choice([["ctx.md"], ["nope.md"], "ctx.md"])
    kind = random.choice(["yaml", "jsonl", "dir", "refs", "inline"])
    if kind == "yaml":
        write(f"evals/s{n}/cases.yaml", yaml.safe_dump([case(i) for i in range(random.randint(0, 4))]))
        suite["tests"] = "./cases.yaml"
    elif kind == "jsonl":
        rows = [json.dumps(case(i)) for i in range(random.randint(0, 4))]
        if random.random() < 0.2:
            rows.insert(1, random.choice(["{bad", "[1]", "", "  "]))
        write(f"evals/s{n}/cases.jsonl", "\n".join(rows) + "\n")
        suite["tests"] = "./cases.jsonl"
    elif kind == "dir":
        for i in range(random.randint(0, 3)):
            name = random.choice(["a", "b", "c", ".d", "e f"]) + str(i)
            if random.random() < 0.85:
                write(f"evals/s{n}/cases/{name}/case.yaml", yaml.safe_dump(case(i)))
            else:
                os.makedirs(f"{out}/evals/s{n}/cases/{name}", exist_ok=True)
        os.makedirs(f"{out}/evals/s{n}/cases", exist_ok=True)
        suite["tests"] = "./cases"
    elif kind == "refs":
        write(f"evals/s{n}/r/one.yaml", yaml.safe_dump([case(0)]))
        write(f"evals/s{n}/r/two.yaml", yaml.safe_dump([case(1), case(2)]))
        suite["tests"] = random.sample(
            ["file://r/one.yaml", "file://r/*.yaml", "file://r/none*.yaml", "file://r/missing.yaml", case(3)],
            3,
        )
    else:
        suite["tests"] = [case(i) for i in range(random.randint(1, 4))]
    text = yaml.safe_dump(suite, sort_keys=False)
    if random.random() < 0.3:
        text = "base: &b\n  criteria: merged\n" + text.replace("tests:\n- ", "tests:\n- <<: *b\n  ", 1)
    write(f"evals/s{n}/t.eval.yaml", text)
