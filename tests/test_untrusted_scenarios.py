"""A bad scenario file is one line naming its place in the YAML, and nothing is recorded.

NUL bytes, control characters, nesting too deep, a lone surrogate, a key that is not a plain value,
fields of the wrong type; and YAML aliases, many of them (a "billion laughs") or a few that expand
hugely, refused before they are expanded. The bundled scenarios still load under the same rules.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from untrusted_helpers import _one_error, _run

from tracer.errors import UserError
from tracer.files.paths import SCENARIOS_DIR


def _scenario(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return path


BASE = "name: s\nprompt: p\nresponses:\n  - text: hi\n"


def _bomb() -> str:
    rows = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    rows += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 9)]
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (BASE + "title: {en: x\0}\n", "s.yaml:5: NUL byte at column"),
        (BASE + "title: " + "[" * 5000 + "]" * 5000 + "\n", "s.yaml:5: refused: nested more"),
        (BASE.replace("prompt: p", 'prompt: "\\ud800"'), "lone surrogate \\ud800"),
        (BASE + "[1, 2]: x\n", "s.yaml:5: not valid YAML: a key must be a plain value"),
        (BASE.replace("- text: hi", "- tool_use: [{name: Bash, id: {a: 1}}]"), "id must be str"),
        (BASE + "title: {en: [1]}\n", "scenario.title must map strings to strings"),
    ],
)
def test_bad_scenarios_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, said: str
) -> None:
    path = _scenario(tmp_path, text)
    code, _, err = _run(capsys, ["record", "--scenario", str(path), "-o", str(tmp_path / "o")])
    _one_error(code, err, said)


def test_a_yaml_alias_bomb_fails_fast(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _scenario(tmp_path, BASE + _bomb() + "title: {en: *a8}\n")
    code, _, err = _run(capsys, ["record", "--scenario", str(path), "-o", str(tmp_path / "o")])
    _one_error(code, err, "refused: more than 64 aliases")


def test_few_aliases_that_expand_hugely_are_refused_too(tmp_path: Path) -> None:
    from tracer.files.yamlfile import load_yaml

    rows = ["a0: &a0 [" + ", ".join(["x"] * 60) + "]"]
    rows += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 6)}]" for n in range(1, 6)]
    path = _scenario(tmp_path, "\n".join(rows) + "\n")
    with pytest.raises(UserError, match="expands to more than 100,000 nodes"):
        load_yaml(path)


def test_bundled_scenarios_still_load() -> None:
    from tracer.chapter.scenario import load_scenario

    for path in sorted(SCENARIOS_DIR.glob("*.yaml")):
        assert load_scenario(path).responses


def test_a_control_character_in_a_scenario_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _scenario(tmp_path, BASE + "title: {en: a\x01b}\n")
    code, _, err = _run(capsys, ["record", "--scenario", str(path)])
    _one_error(code, err, "s.yaml:5: character U+0001 at column 14 is not allowed in YAML")
