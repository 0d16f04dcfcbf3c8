"""Typed reads from a parsed scenario file, each failure one line naming ``file:line``.

A scenario is bad input like any other (the house rule): a mistake in it is a
:class:`~tracer.errors.UserError` that says what is wrong and where, never a traceback. The YAML
loader (:mod:`tracer.files.yamlfile`) keeps the line of every key, and :class:`ScenarioChecker`
reads values out of it by type, refusing unknown keys, missing keys and values of the wrong type.
Note that ``true`` is not a number here: a YAML boolean only passes where a ``bool`` is asked for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracer.errors import UserError
from tracer.files.yamlfile import YamlMap, line_of


class ScenarioChecker:
    """Reads typed values out of a parsed mapping, failing with ``file:line``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, message: str, node: Any, key: str | None = None) -> UserError:
        return UserError(message, self.path, line_of(node, key))

    def mapping(
        self, node: Any, where: str, allowed: set[str], parent: Any = None, key: str | None = None
    ) -> YamlMap:
        if not isinstance(node, YamlMap):
            raise self.fail(
                f"{where} must be a mapping", parent if parent is not None else node, key
            )
        for name in node:
            if name not in allowed:
                raise self.fail(
                    f"unknown key '{name}' in {where} (allowed: {', '.join(sorted(allowed))})",
                    node,
                    name,
                )
        return node

    def get(
        self,
        node: YamlMap,
        key: str,
        types: type | tuple[type, ...],
        where: str,
        required: bool = False,
        default: Any = None,
    ) -> Any:
        if key not in node:
            if required:
                raise self.fail(f"{where} needs '{key}'", node)
            return default
        value = node[key]
        if not isinstance(value, types) or (
            isinstance(value, bool)
            and bool not in (types if isinstance(types, tuple) else (types,))
        ):
            names = "/".join(t.__name__ for t in (types if isinstance(types, tuple) else (types,)))
            raise self.fail(f"{where}.{key} must be {names}, not {type(value).__name__}", node, key)
        return value

    def text_map(self, node: YamlMap, key: str, where: str, default: Any = None) -> Any:
        """A mapping of strings to strings (a title, notes, a rename table)."""
        value = self.get(node, key, dict, where, default=default)
        for name, text in (value or {}).items():
            if not isinstance(name, str) or not isinstance(text, str):
                raise self.fail(f"{where}.{key} must map strings to strings", node, key)
        return value

    def strings(self, node: YamlMap, key: str, where: str) -> list[str]:
        values = self.get(node, key, list, where, default=[])
        for value in values:
            if not isinstance(value, str):
                raise self.fail(f"{where}.{key} must list strings", node, key)
        return list(values)
