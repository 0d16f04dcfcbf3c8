"""YAML that remembers where everything came from, for errors that name ``file:line``.

Scenarios and the chapter guide are written by hand, so their mistakes must point at the line to
fix. :func:`load_yaml` parses with a ``SafeLoader`` whose mappings and sequences carry their line
(and each mapping the line of each key); :func:`line_of` reads it back.

The same loader folds multi-line text the Chinese way. YAML turns each line break of a ``>``
block into a space, which leaves "每次 都要重发" in Chinese prose; here a break between two
Chinese characters, or next to full-width punctuation, joins with nothing
(:func:`tracer.cjk.join_lines`). English lines still join with a space.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tracer.cjk import join_lines
from tracer.errors import UserError


class YamlMap(dict[str, Any]):
    """A mapping that knows its own line and the line of each key."""

    line: int = 0
    key_lines: dict[str, int]


class YamlSeq(list[Any]):
    """A sequence that knows its line."""

    line: int = 0


class _LineLoader(yaml.SafeLoader):
    pass


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> YamlMap:
    out = YamlMap()
    out.line, out.key_lines = node.start_mark.line + 1, {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
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


def load_yaml(path: Path) -> Any:
    """Parse a YAML file keeping line numbers; any failure is a :class:`UserError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError("no such file", path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read: {exc}", path) from None
    try:
        return yaml.load(text, Loader=_LineLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        # At end of input PyYAML points one past the last line; name the last one instead.
        line = min(mark.line + 1, max(text.count("\n"), 1)) if mark else None
        raise UserError(f"not valid YAML: {exc.problem or exc}", path, line) from None


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
