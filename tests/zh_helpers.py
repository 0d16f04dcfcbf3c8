"""The checks every Chinese string is held to: typesetting, no English UI words, the book's words.

:func:`tracer.text.cjk.zh_problems` does the typesetting (no ASCII space between two Chinese
characters or beside full-width punctuation, full-width colons after Chinese labels).
:func:`english_words` finds the ASCII words that are neither code nor one of the ``ALLOWED``
names (identifiers, file names and literal API strings may stay in English); ``UI_PHRASES`` are
the English labels looked for in rendered views, where English trace content sits beside them.
:func:`book_words` asks the glossary beside the guide (``chapters/ch12/glossary.yaml``): the
words it replaces (模型, 运行, user 消息, 回合, 站 outside the three stations…), the English words
that may not be labels or values, and the measure words a number keeps beside it (第2轮).
"""

from __future__ import annotations

import re

from tracer.chapter.guide import load_guide
from tracer.files.paths import RECORDINGS_DIR

RECORDINGS = sorted(RECORDINGS_DIR.glob("*.trace.jsonl")) + sorted(
    (RECORDINGS_DIR / "faults").glob("*.trace.jsonl")
)
#: English words that are UI chrome, never identifiers or API strings: the issue's list and their
#: relatives. Checked in the rendered views, where trace content (English prompts, outputs) sits
#: beside the labels, so only these exact phrases are looked for there.
UI_PHRASES = re.compile(
    r"\brequests? \d|\(internal \d|\battempts\b|\blines \d|more hunks|before persisting|"
    r"station-\d|API messages|\bbytes\b|\(folded\)|same as before|\bturns? \d|\bstep \d|"
    # "String to replace not found" is Edit's own error text (trace data), not UI chrome.
    r"(?<!replace )\bnot found\b|\bmissing\)|go on\b|\bforced by\b|\bnoted by\b|"
    r"\bduration\b|\blatency\b"
)
#: ASCII words allowed in Chinese prose: names of things, not words of the UI.
ALLOWED = {
    "API",
    "JSON",
    "HTTP",
    "SDK",
    "MCP",
    "UTF",
    "SHA",
    "KB",
    "ms",
    "ID",
    "id",
    "Python",
    "tour",  # the command's name, as in "tracer tour"
    "Esc",  # a key name, as printed on the key
    "Ctrl",  # the same (Ctrl+C)
    "Task",  # the subagent tool's name, like Bash and Read
    "OSC",  # the terminal escape (OSC 52) that copying uses
    "tail",  # the command, as in "tail -F"
    "path",  # the wrong parameter name the model wrote, beside file_path
    "TypeScript",
    "JavaScript",
    "Mermaid",
    "Claude",
    "Code",
    "Anthropic",
    "tracer",
    "Textual",
    "Bash",
    "Read",
    "Edit",
    "Write",
    "Glob",
    "Grep",
    "git",
    "status",
    "diff",
    "grep",
    "rg",
    "find",
    "test",
    "cat",
    "ls",
    "echo",
    "true",
    "false",
    "undefined",
    "null",
    "user",
    "assistant",
    "thinking",
    "text",
    "uuid",
    "token",
    "tokens",
    "stdout",
    "stderr",
    "Loop",
    "turn",
    "Tool",
    "result",
    "DEBUG",
    "console",
    "log",
    "Exit",
    "code",
    "hooks",
    "hook",
    "show",
    "replay",
    "doctor",
    "record",
    "debug",
    "lang",
    "zh",
    "en",
    "repeat",
    "step",
    "max",
    "stage",
    "mapping",
    "wrapping",
    "appending",
    "resending",
    "while",
    "state",
    "next",
    "catch",
    "push",
    "content",
    "length",
    "type",
    "messages",
    "model",
    "tools",
    "usage",
    "input",
    "reason",
    "prompt",
    "system",
    "InputValidationError",
    "ToolResultBlockParam",
    "ShellError",
    "PreToolUse",
    "PostToolUse",
    "Enter",
    "Home",
    "End",
    "PgUp",
    "PgDn",
    "space",
    "F1",
    "F3",
    "OK",
    "AI",
    "bug",
    "True",
    "response",
    "session",
    "permission",
    "terminal",
    "completed",
    "interrupted",
}
#: Where a doctor message quotes the API's own error text (a literal API string, kept as is).
_API_QUOTE = re.compile(r"(API 拒绝了[^：]*|违反了 API 的规则)：.*$", re.M)
_CODE = re.compile(
    r"<[^>]*>|“[^”]*”|\"[^\"]*\"|'[^']*'|`[^`]*`|\{[^}]*\}|\[[^\]]*\]"
    r"|[\w.\-/*:]*[_./*:<>\-][\w.\-/*:<>]*|\b[a-z]+[A-Z]\w*\b|\w+\(\)?"
)
GLOSSARY = load_guide().glossary


def book_words(text: str) -> list[str]:
    """What ``text`` gets wrong by the glossary (the book's words, labels, numbers)."""
    assert GLOSSARY is not None, "the guide has its glossary beside it"
    return GLOSSARY.problems(text)


def english_words(text: str) -> list[str]:
    """ASCII words in a Chinese string that are neither code nor an allowed name."""
    stripped = _CODE.sub(" ", _API_QUOTE.sub(" ", text))
    return [w for w in re.findall(r"[A-Za-z]{2,}", stripped) if w not in ALLOWED]
