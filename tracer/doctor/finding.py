"""What the doctor reports: one :class:`Finding` per problem, and the rules it knows.

Each rule is a row of the chapter's table of common errors (常见错误与检查方法), plus
``api-invariants`` for the API's own rules about a conversation. A finding names its rule, how bad
it is, the step where the reader should look (numbered exactly as ``tracer show`` numbers steps),
the turn, one line saying what went wrong in English and in Chinese, and the guide's "how to
check" hint in both languages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning"]

#: How each severity is named, in both languages: the doctor's report and the replay's findings
#: panel say the same words.
SEVERITY_WORDS: dict[str, dict[str, str]] = {
    "error": {"zh": "错误", "en": "error"},
    "warning": {"zh": "警告", "en": "warning"},
}

#: Every rule, in the order the doctor reports findings at the same step, with its severity.
#: ``error``: the loop or the API contract is broken. ``warning``: the loop worked but the session
#: stopped short.
RULES: dict[str, Severity] = {
    "result-not-returned": "error",
    "tool-use-id-mismatch": "error",
    "malformed-result": "error",
    "loop-not-ending": "error",
    "max-turns": "warning",
    "api-invariants": "error",
}


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem the doctor found in a trace."""

    rule: str
    severity: Severity
    step: int
    """1-based step number, counted as ``tracer show`` counts steps (0: before the first step)."""
    turn: int
    message: str
    """One line, in English: what went wrong, with the ids and numbers that prove it."""
    hint: dict[str, str] = field(default_factory=dict)
    """How to check it, ``{"zh": …, "en": …}``: the guide's common-errors "check" text."""
    message_zh: str = ""
    """The same line in Chinese (identifiers and the API's own error text stay as they are)."""

    def text(self, lang: str) -> str:
        """The message in ``lang`` (English when there is no Chinese one)."""
        return self.message_zh if lang == "zh" and self.message_zh else self.message

    def to_dict(self) -> dict[str, Any]:
        """The published JSON shape of a finding (see :data:`FINDINGS_JSON_SCHEMA`)."""
        return {
            "rule": self.rule,
            "severity": self.severity,
            "step": self.step,
            "turn": self.turn,
            "message": self.message,
            "message_zh": self.message_zh or self.message,
            "hint": dict(self.hint),
        }


#: The JSON that ``tracer doctor --json`` prints: a list of findings, in step order.
FINDINGS_JSON_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "tracer doctor --json",
    "type": "array",
    "items": {
        "type": "object",
        "required": ["rule", "severity", "step", "turn", "message", "message_zh", "hint"],
        "additionalProperties": False,
        "properties": {
            "rule": {"enum": list(RULES)},
            "severity": {"enum": ["error", "warning"]},
            "step": {"type": "integer", "minimum": 0},
            "turn": {"type": "integer", "minimum": 0},
            "message": {"type": "string", "pattern": "^[^\\n]+$"},
            "message_zh": {"type": "string", "pattern": "^[^\\n]+$"},
            "hint": {
                "type": "object",
                "required": ["zh", "en"],
                "additionalProperties": False,
                "properties": {"zh": {"type": "string"}, "en": {"type": "string"}},
            },
        },
    },
}
