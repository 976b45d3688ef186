"""Settings parsing (no server): nested and dotted keys, wrong shapes and ranges."""

from __future__ import annotations

from agentv_lsp.lsp.settings import Settings, parse_settings


def test_settings_parse_nested_dotted_and_wrong_shapes() -> None:
    assert parse_settings({"codeLens.enabled": False, "preview": {"debounceMs": 0}}) == Settings(
        code_lens=False, debounce_ms=0
    )
    assert parse_settings(None) == Settings()
    assert parse_settings(["x"]).problems == ("settings must be an object, got list; using the defaults",)
    assert parse_settings({"preview": {"debounceMs": -5}}).problems == (
        "agentv.preview.debounceMs = -5 is out of range; using 150",
    )
    assert parse_settings({"maxFileSizeKb": True}).max_file_size_kb == Settings().max_file_size_kb
