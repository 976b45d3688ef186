"""Generated JavaScript regex sources and subjects, and node's answers for them.

Used by tests/unit/test_jsregex.py to compare `engine.jsregex` with V8 (`new RegExp(source)`,
no flags): random strings over the characters that matter to the regex grammar, and mutations
of patterns people write. node answers a whole batch in one process.
"""

from __future__ import annotations

import json
import random
import subprocess
from typing import Any

# every character the grammar gives a meaning to, and a few that it does not
ALPHABET = [*"()[]{}|*+?\\^$.-,<>=!:dDwWsSbBkcxupP0123456789aAbzZ_ \n", "é", "\U0001d49c"]
TOKENS = [
    "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?<a>", "(?<b>", "(?<$x>", "(?<é>", "(?<\\u0061>",
    "(?<\\u{62}>", "(?<\U0001d49c>", "\\k<a>", "\\k<b>", "\\k<$x>", "\\k", "{1,2}", "{2,1}", "{3}",
    "{2,}", "{,2}", "{99999999999}", "{99999999999,3}", "{\u0661}", "\\1", "\\2", "\\10", "\\8",
    "\\u0041", "\\ud835\\udc9c", "\\u{61}", "\\x4", "\\x41", "\\cA", "\\c1", "\\c_", "[^", "[]",
    "[^]", "\\0", "\\07", "\\377", "\\400", "[a-z]", "[z-a]", "[\\d-z]", "[\\b]", "\\-",
]  # fmt: skip
REAL_PATTERNS = [
    r"^\d{3}-\d{4}$",
    r"(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})",
    r"\bfoo\b",
    r"[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*",
    r"^(?:https?|ftp)://[^\s/$.?#].[^\s]*$",
    r"(\w+)\s\1",
    r"^[\w.+-]+@[\w-]+\.[\w.]+$",
    r"(?<=\$)\d+(\.\d\d)?",
    r"colou?r",
    r"a{2,3}?b*?",
    r"^(?!.*password).*$",
    r"(?<q>['\"]).*?\k<q>",
    r"[^\x00-\x1f]+",
    r"\u00e9|\x41|\101|\0",
    r"(a|b|c)+?\1",
    r"^\s*#.*$",
    r"(?:(a)|b)*\1",
    r"[\w\-]+\.(?:md|txt)$",
    r"^[^/]*?\/(?=.)",
    r"\d+(?:\.\d+)?%",
    r"^(?:[a-z0-9-]+\.)+[a-z]{2,}$",
    r"I (?:don't|do not) know",
    r"\$\{[A-Z_]+\}",
    r"^(\d+)\s*([+*/-])\s*(\d+)$",
    r"\[(?<label>[^\]]*)\]\((?<url>[^)]*)\)",
]


def random_source(rnd: random.Random) -> str:
    pieces = [
        rnd.choice(TOKENS) if rnd.random() < 0.3 else rnd.choice(ALPHABET) for _ in range(rnd.randint(1, 14))
    ]
    return "".join(pieces)


def mutated_source(rnd: random.Random) -> str:
    text = rnd.choice(REAL_PATTERNS)
    for _ in range(rnd.randint(0, 3)):
        at = rnd.randint(0, len(text))
        operation = rnd.random()
        if operation < 0.4:
            text = (
                text[:at] + (rnd.choice(TOKENS) if rnd.random() < 0.3 else rnd.choice(ALPHABET)) + text[at:]
            )
        elif operation < 0.7:
            text = text[:at] + text[at + 1 :]
        elif operation < 0.9:
            text = text[:at] + rnd.choice(ALPHABET) + text[at + 1 :]
        else:
            end = rnd.randint(at, len(text))
            text = text[:end] + text[at:end] + text[end:]
    return text


SUBJECT_CHARACTERS = [*"aAbBcz09_ -./$@'\"#%\n\t", "é", "\U0001d49c", "\u2028"]


def subjects_for(source: str, rnd: random.Random, count: int) -> list[str]:
    """Short subjects (backtracking stays cheap in both engines), drawn partly from the source."""
    pool = SUBJECT_CHARACTERS + [c for c in source if c not in "\\"]
    return ["".join(rnd.choice(pool) for _ in range(rnd.randint(0, 9))) for _ in range(count)]


NODE_SCRIPT = r"""
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = cases.map(([source, subjects]) => {
  let regex;
  try { regex = new RegExp(source); } catch (e) {
    const message = String(e.message);
    return { error: message.slice(message.lastIndexOf(': ') + 2), results: [] };
  }
  return { error: null, results: subjects.map((s) => regex.test(s)) };
});
process.stdout.write(JSON.stringify(out));
"""


def node_answers(cases: list[tuple[str, list[str]]]) -> list[dict[str, Any]]:
    """For each (source, subjects): node's SyntaxError message (None if it compiles) and
    `regex.test(subject)` for each subject, all from one node process."""
    done = subprocess.run(
        ["node", "-e", NODE_SCRIPT],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    answers: list[dict[str, Any]] = json.loads(done.stdout)
    assert len(answers) == len(cases)
    return answers
