"""The formats, by name: the one place that knows which there are. `formats.runtime` chooses
one for a file; every other caller asks here for the `Format` by its name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentv_lsp.formats.v2.format import V2
from agentv_lsp.formats.v4.format import V4

if TYPE_CHECKING:  # the protocol is for the type checker: choosing a format does not import it
    from agentv_lsp.formats.protocol import Format

# In the order `auto` asks whether a file's text declares the format; the default judges a
# file that none declares.
_FORMATS: dict[str, Format] = {V2.name: V2, V4.name: V4}
_DEFAULT = V4.name


def register(fmt: Format) -> None:
    """Add a format (or replace the one of that name): `auto` then asks it, after those
    registered before it, whether a file's text declares it."""
    _FORMATS[fmt.name] = fmt


def unregister(name: str) -> None:
    if name == _DEFAULT or name not in _FORMATS:
        raise KeyError(name)
    del _FORMATS[name]


def get(name: str) -> Format:
    return _FORMATS[name]


def formats() -> tuple[Format, ...]:
    return tuple(_FORMATS.values())


def default() -> Format:
    """The format that judges a file no format declares, when the project names no AgentV."""
    return _FORMATS[_DEFAULT]


def for_request(request: str) -> Format | None:
    """The format a `--agentv` value asks for ("2", "4"); None for "auto"."""
    return next((f for f in _FORMATS.values() if f.request == request), None)


def for_major(major: int) -> Format:
    """The format that reads the files of an AgentV major version named by a project (its
    installed or declared `agentv`): 3.x and later read `tests:` files, 0.x-2.x `evalcases`."""
    return _FORMATS["v4"] if major >= 3 else _FORMATS["v2"]
