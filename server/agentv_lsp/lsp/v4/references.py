"""The files a 4.x eval document points at, with their positions, resolved as 4.42.4 does.

- the `value` of a `type: file` or `type: image` segment (in `input`, `expected_output`,
  `turns`, suite `input`) and each `input_files` item: over the search roots (the eval
  file's folder and its ancestors up to the repo root, then the repo root and the cwd);
- `tests:` as a path (to a YAML/JSONL cases file or a directory) and `file://` items of a
  `tests` list: relative to the eval file's folder;
- a grader `prompt: file://…` and the script of `prompt: {command: [...]}` (in `assertions`
  and the deprecated `assert`/`evaluators`, at suite, test and `execution` level, and inside
  `composite` graders): over the search roots.

Computed once per model version by walking the positioned YAML tree (no re-parse).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from agentv_lsp.engine.files import build_search_roots, resolve_reference
from agentv_lsp.engine.jsrt import node_resolve
from agentv_lsp.formats.v4.keys import V4_KEYS
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.yamlpos import Span

RefKind = Literal["file", "image", "input_file", "tests", "grader_prompt", "grader_script"]
FILE_PREFIX = "file://"
_TESTS_KEYS = V4_KEYS.test_list_keys()
_GRADER_KEYS = ("assertions", "assert", "evaluators")
_SEGMENT_CONTAINERS = ("input", "expected_output", "turns", "expected_outcome")


@dataclass(frozen=True, slots=True)
class Reference:
    span: Span  # the value in this document
    raw: str  # as written
    kind: RefKind
    target: str | None  # the absolute path it resolves to (None: not found)
    attempted: tuple[str, ...]  # where the runtime looks, in order


def references(model: V4Model) -> list[Reference]:
    """Every file reference of the document, in document order (cached per version)."""
    found: list[Reference] = model.memoized("references", lambda: list(_collect(model)))
    return found


def reference_at(model: V4Model, line: int, col: int) -> Reference | None:
    for ref in references(model):
        span = ref.span
        if (span.start_line, span.start_col) <= (line, col) <= (span.end_line, span.end_col):
            return ref
    return None


def _collect(model: V4Model) -> Iterator[Reference]:
    root = model.doc.root
    if model.kind != "eval" or not isinstance(root, MappingNode):
        return
    o = model.opts
    roots = build_search_roots(model.path, o.repo_root, o.cwd)
    eval_dir = os.path.dirname(model.path)

    def searched(node: ScalarNode, kind: RefKind, raw: str | None = None) -> Reference:
        text = str(node.value) if raw is None else raw
        res = resolve_reference(text, roots, o.fs)
        return Reference(Span.of(node), str(node.value), kind, res.resolved_path, tuple(res.attempted))

    def relative(node: ScalarNode, raw: str) -> Reference:
        target = node_resolve(eval_dir, raw)
        exists = o.fs.exists(target) or (o.fs.is_allowed(target) and o.fs.is_dir(target))
        return Reference(Span.of(node), str(node.value), "tests", target if exists else None, (target,))

    def segments(node: Node) -> Iterator[Reference]:
        """Every `{type: file|image, value}` below `node`."""
        if isinstance(node, SequenceNode):
            for item in node.value:
                yield from segments(item)
        elif isinstance(node, MappingNode):
            kind = _scalar(_get(node, "type"))
            value = _get(node, "value")
            remote = str(getattr(value, "value", "")).startswith(("http://", "https://", "data:"))
            if kind in ("file", "image") and isinstance(value, ScalarNode) and _scalar(value) and not remote:
                yield searched(value, "file" if kind == "file" else "image")
            for key, child in node.value:
                if _scalar(key) != "value":
                    yield from segments(child)

    def input_files(node: Node | None) -> Iterator[Reference]:
        if isinstance(node, SequenceNode):
            for item in node.value:
                if isinstance(item, ScalarNode) and _scalar(item):
                    yield searched(item, "input_file")

    def graders(node: Node | None) -> Iterator[Reference]:
        if not isinstance(node, SequenceNode):
            return
        for item in node.value:
            if not isinstance(item, MappingNode):
                continue
            prompt = _get(item, "prompt")
            text = _scalar(prompt)
            if isinstance(prompt, ScalarNode) and text and text.startswith(FILE_PREFIX):
                yield searched(prompt, "grader_prompt", text[len(FILE_PREFIX) :])
            elif isinstance(prompt, MappingNode):
                command = _get(prompt, "command") or _get(prompt, "script")
                if isinstance(command, SequenceNode) and command.value:
                    last = command.value[-1]
                    if isinstance(last, ScalarNode) and _scalar(last):
                        yield searched(last, "grader_script")
            for key in _GRADER_KEYS:  # composite members
                yield from graders(_get(item, key))

    def holder(node: MappingNode) -> Iterator[Reference]:
        """What a suite or a test holds: segments, input files and graders."""
        for key in _SEGMENT_CONTAINERS:
            child = _get(node, key)
            if child is not None:
                yield from segments(child)
        yield from input_files(_get(node, "input_files"))
        for key in _GRADER_KEYS:
            yield from graders(_get(node, key))
        execution = _get(node, "execution")
        if isinstance(execution, MappingNode):
            for key in _GRADER_KEYS:
                yield from graders(_get(execution, key))

    refs = list(holder(root))
    for key in _TESTS_KEYS:
        tests = _get(root, key)
        if tests is None:
            continue
        if isinstance(tests, ScalarNode) and _scalar(tests):
            refs.append(relative(tests, str(tests.value)))
        elif isinstance(tests, SequenceNode):
            for item in tests.value:
                text = _scalar(item)
                if isinstance(item, ScalarNode) and text and text.startswith(FILE_PREFIX):
                    refs.append(relative(item, text[len(FILE_PREFIX) :]))
                elif isinstance(item, MappingNode):
                    refs.extend(holder(item))
        break
    refs.sort(key=lambda r: (r.span.start_line, r.span.start_col))
    # an alias or a merge key reaches the anchor's nodes from every test using it: one reference
    yield from {(r.span, r.kind): r for r in refs}.values()


def _get(node: Node | None, key: str) -> Node | None:
    if isinstance(node, MappingNode):
        for k, v in reversed(node.value):  # the last duplicate wins, as in the loaded value
            if isinstance(k, ScalarNode) and k.value == key:
                return v  # type: ignore[no-any-return]
    return None


def _scalar(node: Node | None) -> str | None:
    if isinstance(node, ScalarNode) and isinstance(node.value, str):
        return node.value
    return None
