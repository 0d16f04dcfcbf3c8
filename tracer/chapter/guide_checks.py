"""Typed reads from a parsed guide file, each failure naming the key path and ``file:line``.

A guide with a mistake is bad input like any other: a :class:`~tracer.errors.UserError` that
says which key (``sections[2].claude_code.file``) is wrong, how, and on which line. The YAML
loader (:mod:`tracer.files.yamlfile`) keeps the line of every key; :class:`GuideChecker` reads
values by type and refuses unknown keys, missing keys, empty strings, texts without both languages
and step kinds the trace does not know.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracer.chapter.guide_records import LANGS, Text
from tracer.errors import UserError
from tracer.files.yamlfile import YamlMap, YamlSeq, line_of
from tracer.trace.events import STAGES


class GuideChecker:
    """Typed reads from the parsed file; every failure names the key path and its line."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, message: str, node: Any = None, key: str | None = None) -> UserError:
        return UserError(f"{where}: {message}", self.path, line_of(node, key))

    def mapping(
        self,
        node: Any,
        where: str,
        required: set[str],
        optional: frozenset[str] | set[str] = frozenset(),
        parent: Any = None,
        key: str | None = None,
    ) -> YamlMap:
        if not isinstance(node, YamlMap):
            raise self.fail(where, "must be a mapping", parent, key)
        for name in node:
            if name not in required | optional:
                raise self.fail(
                    f"{where}.{name}",
                    f"unknown key (allowed: {', '.join(sorted(required | optional))})",
                    node,
                    name,
                )
        for name in sorted(required):
            if name not in node:
                raise self.fail(f"{where}.{name}", "missing", node)
        return node

    def string(self, node: YamlMap, key: str, where: str) -> str:
        value = node[key]
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f"{where}.{key}", "must be a non-empty string", node, key)
        return value

    def text_value(
        self, value: Any, where: str, parent: Any = None, key: str | None = None
    ) -> Text:
        m = self.mapping(value, where, set(LANGS), parent=parent, key=key)
        return Text({lang: self.string(m, lang, where) for lang in LANGS})

    def text(self, node: YamlMap, key: str, where: str) -> Text:
        return self.text_value(node[key], f"{where}.{key}", node, key)

    def sequence(self, node: YamlMap, key: str, where: str) -> YamlSeq:
        value = node[key]
        if not isinstance(value, YamlSeq):
            raise self.fail(f"{where}.{key}", "must be a list", node, key)
        return value

    def stage(self, node: YamlMap, key: str, where: str) -> str:
        value = self.string(node, key, where)
        if value not in STAGES:
            raise self.fail(
                f"{where}.{key}",
                f"unknown stage {value!r} (stages: {', '.join(STAGES)})",
                node,
                key,
            )
        return value


def count(c: GuideChecker, m: YamlMap, key: str, where: str, default: int | None) -> int | None:
    """An optional whole number of at least 1 (a turn, an occurrence)."""
    value = m.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise c.fail(f"{where}.{key}", "must be a whole number of at least 1", m, key)
    return value
