"""Random eval files for differential testing against the AgentV 4.42.4 runtime (not a test).

    python gen_inputs.py SEED OUT_FOLDER     # then record OUT_FOLDER with the golden-v4 driver.mjs

The x-fuzz-* case folders were made this way; recorded goldens stay valid whatever this script becomes.
"""

import os
import random
import shutil
import sys
from pathlib import Path

random.seed(int(sys.argv[1]))
out = sys.argv[2]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out + "/evals/ctx", exist_ok=True)
os.makedirs(out + "/docs", exist_ok=True)
files = {
    "evals/ctx/a.md": "Alpha\r\nline\n",
    "evals/ctx/b.txt": "  \n",
    "docs/g.md": "Guide  \n\n",
    "evals/ctx/p.png": "PNGDATA",
}
for k, v in files.items():
    Path(f"{out}/{k}").write_text(v)
refs = [
    "ctx/a.md",
    "./ctx/b.txt",
    "/docs/g.md",
    "docs/g.md",
    "missing.md",
    "ctx",
    "/ctx/a.md",
    "ctx/p.png",
    "",
]
texts = ["Hello", "  spaced  ", "", "   ", "multi\nline", "Ünï 👍", "{{ v }}", "${{ NOPE_X }}"]
roles = ["user", "user", "system", "assistant", "tool", "robot"]


def content():
    r = random.random()
    if r < 0.4:
        return random.choice(texts)
    if r < 0.5:
        return {"k": random.choice(texts), "2": 1}
    items = []
    for _ in range(random.randint(0, 4)):
        q = random.random()
        if q < 0.3:
            items.append({"type": "text", "value": random.choice(texts)})
        elif q < 0.6:
            items.append({"type": "file", "value": random.choice(refs)})
        elif q < 0.7:
            items.append({"type": "image", "value": random.choice(refs)})
        elif q < 0.8:
            items.append(random.choice(texts))
        elif q < 0.9:
            items.append({"type": "other", "value": 3})
        else:
            items.append({"type": "text", "value": 5})
    return items


def message():
    m = {"role": random.choice(roles), "content": content()}
    if random.random() < 0.1:
        m.pop("content")
        m["tool_calls"] = [{"id": "x"}]
    return m


def inp():
    r = random.random()
    if r < 0.4:
        return random.choice(texts)
    if r < 0.5:
        return {"q": 1}
    if r < 0.55:
        return 42
    return [message() for _ in range(random.randint(0, 4))]


def test(i):
    t = {}
    if random.random() < 0.95:
        t["id"] = f"t{i}"
    if random.random() < 0.6:
        t["criteria"] = random.choice(texts)
    if random.random() < 0.9:
        t["input"] = inp()
    if random.random() < 0.2:
        t["input_files"] = random.sample(refs, 2)
    if random.random() < 0.3:
        r = random.random()
        t["expected_output"] = (
            random.choice(texts) if r < 0.3 else ({"a": 1} if r < 0.4 else [message() for _ in range(2)])
        )
    if random.random() < 0.15:
        t["vars"] = {"v": random.choice(["x", 1, {"a": 2}])}
    if random.random() < 0.2:
        t["execution"] = {"skip_defaults": True}
    if random.random() < 0.2:
        t["assertions"] = [{"type": "contains", "value": "x"}, "crit"]
    if random.random() < 0.1:
        t["conversation_id"] = "c1"
    return t


for n in range(6):
    suite = {"description": f"fuzz {n}"}
    if random.random() < 0.4:
        suite["input"] = inp()
    if random.random() < 0.3:
        suite["input_files"] = random.sample(refs, 2)
    suite["tests"] = [test(i) for i in range(random.randint(1, 6))]
    import yaml

    Path(f"{out}/evals/f{n}.eval.yaml").write_text(yaml.safe_dump(suite, allow_unicode=True, sort_keys=False))
