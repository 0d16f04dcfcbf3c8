"""Tokens as Claude Code counted them: per request and in total, with the cache in.

Each response carries the ``usage`` the API reported (a transcript copies it onto every record of
the response; the importer keeps the last record's, which holds the final ``output_tokens``). What
the model read is split in three: ``input_tokens`` (the part after the last cache breakpoint,
often under ten), ``cache_read_input_tokens`` (the cached prefix, read again) and
``cache_creation_input_tokens`` (new prefix written to the cache). Their sum is the prompt: what
the chapter means when it says the whole history is resent. Counting ``input_tokens`` alone shows
8 tokens for a request that carried 178,199; ccusage and claude-code-log add all four fields, and
so does this module.

A response the stream cut off also cost tokens: the importer keeps its usage in an
``import_note`` (topic ``cut_off``), counted here as its own row. A response without any usage
(a scripted session, an old log) gets an **estimate**: the request's bytes divided by four for
the prompt, nothing for the output, and the row says it is an estimate.

Pure and low (the trace layer): ``show``, the replay's request view and the HTML export all call
:func:`token_account` on the events they already have.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field

from tracer.trace.event_class import lean_dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Bytes per token for an estimate: about four for English text and JSON (a rough rule; Chinese
#: text runs nearer one token per character, three bytes).
BYTES_PER_TOKEN = 4


def count(value: Any) -> int | None:
    """A usage field as a count of tokens: a whole number, not negative; else ``None``. A trace
    or a transcript is someone's file: a string, a float or ``true`` there counts nothing."""
    return value if type(value) is int and value >= 0 else None


def _int(value: Any) -> int:
    return count(value) or 0


@lean_dataclass(frozen=True, slots=True)
class Tokens:
    """One request's tokens (or a sum of them)."""

    input: int = 0
    """``input_tokens``: read fresh, after the last cache breakpoint."""
    cache_read: int = 0
    """``cache_read_input_tokens``: the cached prefix, read again."""
    cache_creation: int = 0
    """``cache_creation_input_tokens``: written to the cache by this request."""
    output: int = 0
    """``output_tokens``: the answer."""
    estimated: bool = False
    """No usage was recorded; the prompt is estimated from the request's size."""

    @property
    def prompt(self) -> int:
        """Everything the model read for this request."""
        return self.input + self.cache_read + self.cache_creation

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(
            self.input + other.input,
            self.cache_read + other.cache_read,
            self.cache_creation + other.cache_creation,
            self.output + other.output,
            self.estimated or other.estimated,
        )

    def line(self) -> str:
        """``input 3 + cache read 14,000 + cache write 2,100 = 16,103 in, 60 out``."""
        if self.estimated:
            return f"≈{self.prompt:,} in (estimated from the request's bytes), output unknown"
        return (
            f"input {self.input:,} + cache read {self.cache_read:,} + cache write "
            f"{self.cache_creation:,} = {self.prompt:,} in, {self.output:,} out"
        )


def tokens_of(usage: dict[str, Any] | None, request_bytes: int | None = None) -> Tokens | None:
    """A usage block as :class:`Tokens`; an estimate when it holds no count (``None`` when there
    is nothing to estimate from either)."""
    usage = usage if isinstance(usage, dict) else {}
    keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    if any(_int(usage.get(k)) for k in (*keys, "output_tokens")):
        return Tokens(
            _int(usage.get("input_tokens")),
            _int(usage.get("cache_read_input_tokens")),
            _int(usage.get("cache_creation_input_tokens")),
            _int(usage.get("output_tokens")),
        )
    if request_bytes:
        return Tokens(input=-(-request_bytes // BYTES_PER_TOKEN), estimated=True)
    return None


@lean_dataclass(frozen=True, slots=True)
class Row:
    """One model call: the request it answered, and its tokens."""

    request_index: int
    tokens: Tokens
    cut_off: bool = False
    """A stream that broke off (its request was sent again)."""


@lean_dataclass
class Account:
    """Every call's tokens, in order, and their total."""

    rows: list[Row] = field(default_factory=list)

    @property
    def total(self) -> Tokens:
        out = Tokens()
        for row in self.rows:
            out = out + row.tokens
        return out

    @property
    def estimated(self) -> int:
        return sum(row.tokens.estimated for row in self.rows)

    def by_request(self) -> dict[int, Tokens]:
        """The last answer's tokens per request (a resent request: the answer that came)."""
        return {row.request_index: row.tokens for row in self.rows if not row.cut_off}

    def summary(self) -> str:
        """One line for the end of ``show``."""
        total = self.total
        text = (
            f"tokens over {len(self.rows)} model call(s): input {total.input:,}, cache read "
            f"{total.cache_read:,}, cache write {total.cache_creation:,}, output "
            f"{total.output:,} ({total.prompt:,} read in all)"
        )
        if self.estimated:
            text += f"; {self.estimated} call(s) estimated from request bytes (no usage recorded)"
        return text


def token_account(events: Iterable[Any]) -> Account:
    """Tokens per model call from a trace's events (``request``, ``response``, and the
    ``cut_off`` import notes)."""
    account = Account()
    sizes: dict[int, int] = {}
    for event in events:
        kind = getattr(event, "kind", None)
        if kind == "request":
            sizes[event.request_index] = event.bytes
        elif kind == "response":
            tokens = tokens_of(event.usage, sizes.get(event.request_index))
            if tokens is not None:
                account.rows.append(Row(event.request_index, tokens))
        elif kind == "import_note" and event.topic == "cut_off" and event.data:
            tokens = tokens_of(event.data.get("usage"))
            if tokens is not None:
                index = int(event.data.get("request_index") or 0)
                account.rows.append(Row(index, tokens, cut_off=True))
    return account
