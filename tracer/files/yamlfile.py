"""YAML that remembers where everything came from, for errors that name ``file:line``.

Scenarios and the chapter guide are written by hand, so their mistakes must point at the line to
fix. :func:`load_yaml` parses with a ``SafeLoader`` whose mappings and sequences carry their line
(and each mapping the line of each key); :func:`line_of` reads it back.

The same loader folds multi-line text the Chinese way. YAML turns each line break of a ``>``
block into a space, which leaves "每次 都要重发" in Chinese prose; here a break between two
Chinese characters, or next to full-width punctuation, joins with nothing
(:func:`tracer.text.cjk.join_lines`). English lines still join with a space.

A scenario can also come from someone else, so the loader is bounded: the text comes through
:func:`tracer.files.untrusted.read_text` (a regular file, strict UTF-8, no NUL, a few MB at most),
and while composing, nesting depth, the number of aliases and the size the aliases would expand to
are counted, so a "billion laughs" file (aliases of aliases of a list) fails in milliseconds instead
of filling memory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tracer.errors import UserError
from tracer.files.careful import check_numbers, check_value
from tracer.files.untrusted import read_text
from tracer.text.cjk import join_lines

MAX_DEPTH = 32
"""Nesting of mappings and sequences; real scenarios nest about 6 deep."""
MAX_ALIASES = 64
MAX_NODES = 100_000
"""Nodes in the document once every alias is expanded (the bundled scenarios have a few hundred)."""


class YamlMap(dict[str, Any]):
    """A mapping that knows its own line and the line of each key."""

    line: int = 0
    key_lines: dict[str, int]


class YamlSeq(list[Any]):
    """A sequence that knows its line."""

    line: int = 0


class _LineLoader(yaml.SafeLoader):
    """A safe loader that counts while it composes, so nothing is built past the bounds."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise _TooBig(f"more than {MAX_ALIASES} aliases", self.peek_event().start_mark)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _TooBig(f"nested more than {MAX_DEPTH} deep", self.peek_event().start_mark)
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _TooBig(Exception):
    def __init__(self, what: str, mark: Any) -> None:
        super().__init__(what)
        self.what, self.mark = what, mark


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _expanded_size(root: yaml.Node) -> int:
    """Nodes ``root`` stands for with aliases expanded; shared nodes are counted once per use.

    A node reached again while it is still being walked is an alias inside its own anchor
    (``a: &x [*x]``), which no finite value can be: refused, not followed until Python's stack
    runs out. The walk keeps its own stack, so no shape of document can exhaust Python's.
    """
    sizes: dict[int, int] = {}
    walking: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            walking.discard(key)
            total = 1 + sum(sizes[id(child)] for child in _children(node))
            if total > MAX_NODES:
                raise _TooBig(
                    f"expands to more than {MAX_NODES:,} nodes (aliases)", node.start_mark
                )
            sizes[key] = total
            continue
        if key in sizes:
            continue
        walking.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in walking:
                raise _TooBig("an alias refers to the node that holds it", child.start_mark)
            if id(child) not in sizes:
                stack.append((child, False))
    return sizes[id(root)]


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> YamlMap:
    out = YamlMap()
    out.line, out.key_lines = node.start_mark.line + 1, {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        # Every reader of these files looks keys up by name, so a key is a string: ``1:``,
        # ``true:`` or ``null:`` is a mistake to name here, not an int for code far away to trip on.
        if not isinstance(key, str):
            scalar = isinstance(key, int | float | bool) or key is None
            problem = (
                f"a key must be a string, not {type(key).__name__} {key!r}"
                if scalar
                else f"a key must be a plain value, not a {type(key).__name__}"
            )
            raise yaml.constructor.ConstructorError(None, None, problem, key_node.start_mark)
        out[key] = loader.construct_object(value_node, deep=True)
        out.key_lines[str(key)] = key_node.start_mark.line + 1
    return out


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> YamlSeq:
    out = YamlSeq(loader.construct_object(child, deep=True) for child in node.value)
    out.line = node.start_mark.line + 1
    return out


def _construct_str(loader: _LineLoader, node: yaml.ScalarNode) -> str:
    value = loader.construct_scalar(node)
    if node.style not in (">", None) or node.start_mark.line == node.end_mark.line:
        return value
    return _refold(loader.buffer[node.start_mark.index : node.end_mark.index], node.style, value)


def _refold(raw: str, style: str | None, value: str) -> str:
    """Fold ``raw`` (the scalar's source) again with :func:`join_lines`.

    Only when YAML's own folding of the same lines gives exactly ``value``: any construct we do
    not redo here (more-indented lines, escapes) keeps YAML's result.
    """
    lines = [line.strip() for line in raw.split("\n")[1 if style == ">" else 0 :]]
    while lines and not lines[-1]:
        lines.pop()
    paragraphs: list[list[str]] = [[]]
    breaks: list[int] = []
    for line in lines:
        if line:
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
            breaks.append(1)
        elif breaks:
            breaks[-1] += 1
    body = value.rstrip("\n")
    yaml_way = paragraphs[0] and " ".join(paragraphs[0])
    ours = join_lines(paragraphs[0])
    for count, paragraph in zip(breaks, paragraphs[1:], strict=False):
        yaml_way = f"{yaml_way}{chr(10) * count}{' '.join(paragraph)}"
        ours = f"{ours}{chr(10) * count}{join_lines(paragraph)}"
    if yaml_way != body:
        return value
    return ours + value[len(body) :]


_LineLoader.add_constructor("tag:yaml.org,2002:str", _construct_str)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def _parse(text: str) -> Any:
    """Compose (bounded), check the expanded size, then construct."""
    loader = _LineLoader(text)  # checks the characters already: inside the caller's ``try``
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def load_yaml(path: Path) -> Any:
    """Parse a YAML file keeping line numbers; any failure is a :class:`UserError`."""
    text = read_text(path, "a YAML file")
    last = max(text.count("\n"), 1)
    try:
        data = _parse(text)
    except _TooBig as exc:
        raise UserError(f"refused: {exc.what}", path, min(exc.mark.line + 1, last)) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        # At end of input PyYAML points one past the last line; name the last one instead.
        line = min(mark.line + 1, last) if mark else None
        raise UserError(f"not valid YAML: {exc.problem or exc}", path, line) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow
        line = text.count("\n", 0, exc.position) + 1
        where = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        char = exc.character if isinstance(exc.character, int) else ord(exc.character)
        what = f"character U+{char:04X} at column {where} is not allowed in YAML"
        raise UserError(what, path, line) from None
    except yaml.YAMLError as exc:
        raise UserError(f"not valid YAML: {' '.join(str(exc).split())}", path) from None
    check_value(data, path)  # a "\ud800" escape would make a lone surrogate
    check_numbers(data, path)  # .inf, or an integer no trace can hold
    return data


def line_of(node: Any, key: str | None = None) -> int | None:
    """The line of a parsed node, or of one of its keys; ``None`` for plain values."""
    if isinstance(node, YamlMap):
        return node.key_lines.get(key, node.line) if key is not None else node.line
    if isinstance(node, YamlSeq):
        return node.line
    return None


def plain(value: Any) -> Any:
    """The same data as plain dicts and lists (for values that leave the loader)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value
