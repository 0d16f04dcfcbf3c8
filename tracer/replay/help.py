"""A help screen's rows, generated from the bindings (as posting builds its help from them).

Every binding of the replay and of the comparison has an ``id`` (Textual's
``Binding(..., id=...)``, the name a keymap gives it: ``App.set_keymap``). The words live in the
Textual-free tables beside the keys' other words (:data:`tracer.view.i18n_keys.HELP` with
:data:`~tracer.view.i18n_keys.HELP_LINES`; :data:`tracer.compare.beside_words.HELP` with
:data:`~tracer.compare.beside_words.HELP_LINES`): a table of lines (keys as the help writes
them, and the words in both languages) and the line of each binding id. :func:`help_rows` lists
the lines the bindings on screen explain, in the table's order; a line whose keys a keymap moved
says the keys as they are now.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode

#: A help row: the keys, and the words in each language.
HelpRow = tuple[str, dict[str, str]]


def help_rows(
    bindings: Iterable[Binding],
    keymap: Mapping[str, str],
    display: Callable[[str], str],
    table: list[HelpRow],
    lines_of: Mapping[str, str | tuple[str, ...]],
    always: tuple[str, ...] = (),
) -> list[HelpRow]:
    """The rows of ``table`` that ``bindings`` explain (each binding's line, by its id, in
    ``lines_of``), in the table's order, and the ``always`` lines (Textual's own keys). A line
    whose bindings ``keymap`` moved shows their keys as they are now (each written by
    ``display``), else as the table writes them.

    Raises :class:`KeyError` for a binding with no id or no line: each key has its words."""
    keys_of: dict[str, list[str]] = {}  # line → the keys bound for it, in the bindings' order
    moved: set[str] = set()  # lines with a key a keymap moved
    for binding in bindings:
        if binding.id is None:
            raise KeyError(f"a binding has no id: {binding.key} {binding.action}")
        lines = lines_of[binding.id]
        for line in (lines,) if isinstance(lines, str) else lines:
            keys = keys_of.setdefault(line, [])
            chosen = keymap.get(binding.id)
            if chosen is not None:
                moved.add(line)
            keys += [k.strip() for k in (chosen or binding.key).split(",") if k not in keys]
    rows = []
    for line, words in table:
        if line in moved:
            rows.append((" ".join(dict.fromkeys(display(k) for k in keys_of[line])), words))
        elif line in keys_of or line in always:
            rows.append((line, words))
    return rows


def bound_here(node: DOMNode) -> list[Binding]:
    """tracer's bindings on ``node`` (a screen) and every widget on it, each class's own and its
    base classes' (Textual's widgets keep their own keys, which have no words here)."""
    found: dict[tuple[str | None, str], Binding] = {}
    for each in [node, *node.walk_children()]:
        for cls in type(each).__mro__:
            if not cls.__module__.startswith("tracer."):
                continue
            for binding in cls.__dict__.get("BINDINGS", []):
                if isinstance(binding, Binding):
                    found.setdefault((binding.id, binding.key), binding)
    return list(found.values())


def keymap_of(app: App[object]) -> Mapping[str, str]:
    """The keymap ``app`` applies (``App.set_keymap``: binding id → keys; Textual keeps it
    private, so it is read in this one place)."""
    return app._keymap


def key_display(app: App[object]) -> Callable[[str], str]:
    """How ``app`` writes a key in a footer (``right`` → ``→``, ``ctrl+t`` → ``^t``)."""
    return lambda key: app.get_key_display(Binding(key, ""))
