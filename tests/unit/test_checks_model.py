"""Diagnostics cross process boundaries (`agentv-lsp check` forks): pickling keeps every field."""

from __future__ import annotations

import dataclasses
import pickle

from agentv_lsp.checks.model import Diagnostic, Related
from agentv_lsp.yamlpos import Span


def _every_field_set() -> Diagnostic:
    related = Related("/repo/.agentv/config.yaml", Span(1, 2, 3, 4), "the config that decided it")
    return Diagnostic(
        file="/repo/evals/a.yaml",
        span=Span(5, 6, 7, 8),
        severity="warning",
        code="guideline-lost",
        message="lost",
        yaml_path=("evalcases", 3, "input_messages", 0, "content"),
        data={"fix": "x", "n": [1, 2]},
        related=(related,),
        unnecessary=True,
    )


def test_a_diagnostic_survives_pickling_with_every_field():
    original = _every_field_set()
    # no field may keep its default, or a field left out of __reduce__ would go unnoticed
    for f in dataclasses.fields(Diagnostic):
        if f.default is not dataclasses.MISSING:
            assert getattr(original, f.name) != f.default, f.name
        if f.default_factory is not dataclasses.MISSING:
            assert getattr(original, f.name) != f.default_factory(), f.name
    copy = pickle.loads(pickle.dumps(original, protocol=pickle.HIGHEST_PROTOCOL))
    for f in dataclasses.fields(Diagnostic):
        assert getattr(copy, f.name) == getattr(original, f.name), f.name
    assert copy.related[0] == original.related[0] and copy.span == original.span


def test_spans_and_related_survive_pickling():
    for value in (Span(0, 1, 2, 3), Related("/f", Span(9, 8, 7, 6), "m")):
        copy = pickle.loads(pickle.dumps(value))
        assert copy == value and type(copy) is type(value)
        assert [getattr(copy, f.name) for f in dataclasses.fields(value)] == [
            getattr(value, f.name) for f in dataclasses.fields(value)
        ]
