"""The object key eemeli/yaml makes of a collection used as a mapping key: its YAML text.

A JavaScript object key is a string, so eemeli/yaml (`parse()`, no `mapAsMap`) writes a key
that is a sequence or a mapping back as flow YAML with its own stringifier (`[ a, b ]`,
`{ first: Sammy }`), breaking the text over lines past 80 columns or when an item spans lines.
This module writes the same text from a node tree of `eemeli` (which keeps anchors and marks
pairs written without a value). The collection's own anchor and tag are left out, as
eemeli/yaml leaves them out; those of its items are written as the text gave them, and a
scalar with a core tag as the value that tag makes of it (`!!int "1"` is `!!int 1`).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from yaml.nodes import Node, ScalarNode, SequenceNode

from agentv_lsp.engine.jsregex import JS_WHITESPACE
from agentv_lsp.yamlpos.scalars import (
    TagResolveError,
    js_json_stringify,
    js_number,
    resolve_plain,
    resolve_tagged,
)

_LINE_WIDTH = 80
_INDENT_STEP = "  "
_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_CORE_TAGS = frozenset(
    (
        "tag:yaml.org,2002:str",
        "tag:yaml.org,2002:seq",
        "tag:yaml.org,2002:map",
        "?plain",
        "?plain-1.1",
        None,
    )
)


# eemeli/yaml's `anchorIsValid` (`/[\x00-\x19\s,[\]{}]/`, JavaScript's `\s`), checked as it
# writes an anchor or alias into a key's text: the scanner took the name, the writing refuses it
_INVALID_ANCHOR = re.compile("[\x00-\x19,\\[\\]{}" + re.escape(JS_WHITESPACE) + "]")


class InvalidAnchor(ValueError):
    """An anchor eemeli/yaml refuses to write into a collection key's text (its message)."""


def _anchor(name: str) -> str:
    if _INVALID_ANCHOR.search(name) is not None:
        raise InvalidAnchor(
            f"Anchor must not contain whitespace or control characters: {js_json_stringify(name)}"
        )
    return name


def collection_key_text(node: Node, *, alias: bool = False) -> str:
    """The key eemeli/yaml gives a mapping entry whose key is `node` (a collection).
    Raises InvalidAnchor where eemeli/yaml refuses an anchor name it writes."""
    anchor: str | None = getattr(node, "anchor", None)
    if alias and anchor:
        return "*" + _anchor(anchor)
    return _Writer(node).collection(node, "")


class _Writer:
    def __init__(self, key: Node) -> None:
        self.key = key
        self.written: set[int] = {id(key)}

    def node(self, node: Node, indent: str, *, implicit_key: bool = False) -> str:
        anchor: str | None = getattr(node, "anchor", None)
        if id(node) in self.written and anchor:
            return "*" + _anchor(anchor)  # a second appearance of the same node: an alias
        self.written.add(id(node))
        props = []
        if anchor:
            props.append("&" + _anchor(anchor))
        tag = node.tag
        written: str | None = getattr(node, "written_tag", None)
        if written is not None:
            props.append("!" if written == "!" else _tag_text(written))
        elif tag not in _CORE_TAGS or (tag == _STR and isinstance(node, ScalarNode) and not node.style):
            props.append(_tag_text(tag))  # a tag written in the text (`!!str` on a plain scalar)
        if isinstance(node, ScalarNode):
            typed = _typed_scalar(node) if written in _TYPED_TAGS else None
            body = typed if typed is not None else self.scalar(node, implicit_key)
        else:
            body = self.collection(node, indent)
        return " ".join([*props, body]) if props else body

    def collection(self, node: Node, indent: str) -> str:
        if isinstance(node, SequenceNode):
            start, end = "[", "]"
            item_indent = indent + _INDENT_STEP + _INDENT_STEP
            items = [self.node(child, item_indent) for child in node.value]
        else:
            start, end = "{", "}"
            item_indent = indent + _INDENT_STEP
            items = [self.pair(k, v, item_indent) for k, v in node.value]
        if not items:
            return start + end
        lines = [text + ("," if i < len(items) - 1 else "") for i, text in enumerate(items)]
        multiline = any("\n" in line for line in lines)
        if not multiline:
            multiline = sum(len(line) + 2 for line in lines) + 2 > _LINE_WIDTH
        if multiline:
            return start + "".join(f"\n{_INDENT_STEP}{indent}{line}" for line in lines) + f"\n{indent}{end}"
        return f"{start} {' '.join(lines)} {end}"

    def pair(self, key: Node, value: Node, indent: str) -> str:
        explicit = not isinstance(key, ScalarNode) or key.style in ("|", ">")
        key_text = self.node(key, indent + _INDENT_STEP, implicit_key=not explicit)
        if getattr(value, "missing", False):
            return "?" if key_text == "" else (f"? {key_text}" if explicit else key_text)
        text = f"? {key_text}\n{indent}:" if explicit else f"{key_text}:"
        value_text = self.node(value, indent + _INDENT_STEP)
        return f"{text} {value_text}" if value_text else text

    def scalar(self, node: ScalarNode, implicit_key: bool) -> str:
        if node.tag == _MERGE:
            return "<<"  # whatever its text: `!!merge` makes the merge key of any scalar
        text: str = node.value
        if node.style == '"' or _NEEDS_DOUBLE.search(text):
            return _double_quoted(text)
        if node.style == "'":
            return _single_quoted(text)
        if node.style in ("|", ">"):
            return _quoted(text)
        if node.tag in ("?plain", "?plain-1.1"):
            value = resolve_plain(text)
            if value is None:
                return text if _NULL_SOURCE.fullmatch(text) else "null"
            if isinstance(value, bool):
                return text
            if isinstance(value, (int, float)):
                return _number_text(value, text)
        return _plain_string(text, implicit_key)


_NEEDS_DOUBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_NULL_SOURCE = re.compile(r"~|[Nn]ull|NULL|")
_NOT_PLAIN = re.compile(r"^[\n\t ,[\]{}#&*!|>'\"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$")


def _plain_string(text: str, implicit_key: bool) -> str:
    if (implicit_key and "\n" in text) or re.search(r"[\[\]{},]", text):
        return _quoted(text)
    if not text or _NOT_PLAIN.search(text):
        return _quoted(text)
    if not isinstance(resolve_plain(text), str):
        return _quoted(text)  # would read back as a number, a boolean or null
    return re.sub(r"\n+", lambda m: m.group() + "\n", text) if not implicit_key else text


def _quoted(text: str) -> str:
    has_double, has_single = '"' in text, "'" in text
    if has_double and not has_single:
        return _single_quoted(text)
    return _double_quoted(text)


def _single_quoted(text: str) -> str:
    if "\n" in text:
        return _double_quoted(text)
    return "'" + text.replace("'", "''") + "'"


def _double_quoted(text: str) -> str:
    # eemeli/yaml's doubleQuotedString: JSON.stringify's text, its `\u00XX` escapes shortened
    return _JSON_ESCAPE.sub(_yaml_escape, js_json_stringify(text))


_JSON_ESCAPE = re.compile(r"\\(u[0-9a-f]{4}|.)")
_SHORT_ESCAPES = {"u0000": "\\0", "u0007": "\\a", "u000b": "\\v", "u001b": "\\e"}


def _yaml_escape(match: re.Match[str]) -> str:
    escape = match[1]
    if escape in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[escape]
    if escape.startswith("u00"):
        return "\\x" + escape[3:]
    return match[0]


_HEX_OR_OCTAL = re.compile(r"0x[0-9a-fA-F]+|0o[0-7]+")
_EXPONENT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+")


def _number_text(value: Any, source: str) -> str:
    if isinstance(value, float):
        if value != value:
            return ".nan"
        if value in (float("inf"), float("-inf")):
            return ".inf" if value > 0 else "-.inf"
    if isinstance(value, int) and value >= 0 and _HEX_OR_OCTAL.fullmatch(source):
        return source[:2] + format(value, source[1])  # eemeli/yaml keeps the base, in lower case
    if _EXPONENT.fullmatch(source):
        return _js_exponential(float(value))
    text = js_number(value)
    if value == 0 and source.startswith("-") and not text.startswith("-"):
        text = "-" + text  # JavaScript's -0 (an int here)
    dot = source.find(".")
    if dot != -1 and "e" not in source.lower():
        fraction = source[dot + 1 :]
        if fraction.endswith("0"):  # eemeli/yaml keeps the written number of decimals
            have = len(text.partition(".")[2])
            if have < len(fraction):
                text = (text if "." in text else text + ".") + "0" * (len(fraction) - have)
    return text


_TYPED_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("int", "float", "bool", "null"))


def _typed_scalar(node: ScalarNode) -> str | None:
    """A scalar tagged `!!int`, `!!float`, `!!bool` or `!!null` as eemeli/yaml writes the value
    its tag makes of it (whatever its quotes); None where the tag leaves a string."""
    try:
        value = resolve_tagged(node.tag, node.value)
    except TagResolveError:
        return None
    tag: str = node.tag
    source: str = node.value
    if isinstance(value, str):  # the tag's test failed: its stringifier takes the string
        if tag.endswith(("int", "float")):
            return ".nan"  # Number("x")
        return "null" if tag.endswith("null") else ("true" if value else "false")
    if value is None:
        return source if _NULL_SOURCE.fullmatch(source) else "null"
    if isinstance(value, bool):
        return source  # the tag's test matched the text as written
    if isinstance(value, (int, float)):
        return _number_text(value, source)
    return None


def _js_exponential(value: float) -> str:
    """JavaScript's `value.toExponential()`: the shortest digits, `e+3`/`e-4`."""
    sign = "-" if value < 0 else ""
    _, digit_tuple, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    power = int(exponent) + len(digits) - 1
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'+' if power >= 0 else '-'}{abs(power)}"


def _tag_text(tag: str) -> str:
    if tag.startswith("tag:yaml.org,2002:"):
        return "!!" + tag[len("tag:yaml.org,2002:") :]
    if tag.startswith("!"):
        return tag
    return f"!<{tag}>"
