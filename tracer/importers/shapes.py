"""The record shapes the Claude Code importer relies on, made sure of once, right after parsing.

A transcript is someone else's file, written by many versions of Claude Code and sometimes cut or
edited by hand. Rather than checking every field wherever it is used, each record is brought to
the shapes the importer reads (``uuid`` a string, ``parentUuid`` a string or null, ``message`` an
object whose ``content`` is a string or a list of block objects, block ids strings, flags
booleans). What cannot be read that way is dropped and counted, never a traceback: a
conversation record whose message is not an object is skipped as a whole, a block that is not an
object is left out of its message. Unknown fields are kept untouched.

An API log's request/response pairs are checked, not mended (:func:`api_log_record`): a pair of
the wrong shape is skipped and counted like an unreadable line.
"""

from __future__ import annotations

import json

from tracer.importers.jsonl import Record
from tracer.importers.output import ImportReport

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_IDS = (
    "uuid",
    "parentUuid",
    "logicalParentUuid",
    "sourceToolAssistantUUID",
    "agentId",
    "sessionId",
    "version",
    "timestamp",
    "subtype",
    "requestId",
)
_FLAGS = ("isSidechain", "isMeta", "isCompactSummary", "isApiErrorMessage")
_BLOCK_IDS = ("id", "tool_use_id", "type", "name")


def _block(block: Any) -> dict[str, Any] | None:
    """A block in the shapes a trace holds (:mod:`tracer.trace.shapes`), or None when it has
    no type at all. A tool result's content that is neither text nor blocks is read as its
    JSON text, and blocks inside it are mended the same way."""
    if not isinstance(block, dict):
        return None
    out = dict(block)
    for key in _BLOCK_IDS:
        if key in out and not isinstance(out[key], str):
            out[key] = str(out[key]) if isinstance(out[key], int | float) else None
    if not isinstance(out.get("type"), str):
        return None
    if out["type"] == "tool_result" and out.get("content") is not None:
        inner = out["content"]
        if isinstance(inner, list):
            out["content"] = [b for b in (_block(x) for x in inner) if b is not None]
        elif not isinstance(inner, str):
            out["content"] = json.dumps(inner, ensure_ascii=False)
    return out


def _blocks_clean(content: Any) -> bool:
    """Whether a tool result's content list holds only blocks a trace takes as they are."""
    if type(content) is not list:
        return False
    for block in content:
        if type(block) is not dict or type(block.get("type")) is not str:
            return False
        if block["type"] == "tool_result":
            inner = block.get("content")
            if inner is not None and type(inner) is not str and not _blocks_clean(inner):
                return False
    return True


def clean_record(rec: dict[str, Any], report: ImportReport) -> dict[str, Any] | None:
    """``rec`` in the shapes the importer reads, or None when it cannot be read at all."""
    out = dict(rec)
    kind = out.get("type")
    if not isinstance(kind, str):
        out["type"] = kind = "untyped"
    for key in _IDS:
        if key in out and out[key] is not None and not isinstance(out[key], str):
            out[key] = None
            report.skip(f"fields of the wrong type ({key}; read as missing)")
    for key in _FLAGS:
        if key in out:
            out[key] = out[key] is True
    if kind in ("user", "assistant"):
        message = out.get("message")
        if not isinstance(message, dict):
            report.skip(f"{kind} records without a message object")
            return None
        message = dict(message)
        content = message.get("content")
        if isinstance(content, list):
            blocks = [b for b in (_block(x) for x in content) if b is not None]
            if len(blocks) != len(content):
                report.skip("content blocks that are not objects with a type")
            message["content"] = blocks
        elif not isinstance(content, str):
            message["content"] = []
            report.skip("messages whose content is neither text nor blocks (read as empty)")
        for key in ("id", "model", "stop_reason"):
            if key in message and message[key] is not None and not isinstance(message[key], str):
                message[key] = None
        if not isinstance(message.get("usage"), dict):
            message["usage"] = {}
        out["message"] = message
    if kind == "attachment" and not isinstance(out.get("attachment"), dict):
        out["attachment"] = {}
    if kind == "progress" and not isinstance(out.get("data"), dict):
        out["data"] = {}
    if isinstance(out.get("compactMetadata"), dict) is False and "compactMetadata" in out:
        out["compactMetadata"] = {}
    return out


_MESSAGE_KEYS = ("id", "model", "stop_reason")


def _strings(fields: dict[str, Any], keys: tuple[str, ...]) -> bool:
    """Whether each of ``keys`` in ``fields`` is a string, null or absent."""
    get = fields.get
    for key in keys:
        value = get(key)
        if value is not None and type(value) is not str:
            return False
    return True


#: Besides ``type``, :mod:`tracer.importers.claude_code.census` reads these of every record to sort
# it:
#: it hands them to :func:`is_clean` rather than have them read twice. The rest are read here.
_OTHER_IDS = tuple(key for key in _IDS if key not in ("uuid", "subtype"))
_OTHER_FLAGS = tuple(key for key in _FLAGS if key != "isSidechain")
#: A block's ``type`` must be a string (not null): it is read, and checked, on its own.
_OTHER_BLOCK_IDS = tuple(key for key in _BLOCK_IDS if key != "type")


def _is_clean(rec: dict[str, Any]) -> bool:
    """Whether every field of ``rec`` already has its shape (see :func:`is_clean`)."""
    get = rec.get
    return is_clean(
        rec, get("type"), get("uuid"), get("subtype"), get("isSidechain", False), get("data")
    )


def is_clean(
    rec: dict[str, Any], kind: Any, uid: Any, subtype: Any, sidechain: Any, data: Any
) -> bool:
    """The common case, checked without copying: every field already has its shape.

    ``kind``, ``uid``, ``subtype``, ``sidechain`` and ``data`` are the record's ``type``,
    ``uuid``, ``subtype``, ``isSidechain`` (``False`` when absent) and ``data``: the census
    reads them of every record to sort it and passes them in, so the one walk over the file
    reads each field once.

    This runs on every record of the file, whatever the import does with it, so it only
    looks: plain loops over the fields, which cost less than ``map`` chains (each of those
    builds iterators and a set per record). Parsed JSON has no subclasses of ``str``,
    ``bool`` or ``dict``, so ``type()`` says what ``isinstance`` would.
    """
    if type(kind) is not str or type(sidechain) is not bool:
        return False
    if uid is not None and type(uid) is not str:
        return False
    if subtype is not None and type(subtype) is not str:
        return False
    get = rec.get
    for key in _OTHER_IDS:  # _strings(rec, _OTHER_IDS) written out: it runs for every record
        value = get(key)
        if value is not None and type(value) is not str:
            return False
    for key in _OTHER_FLAGS:
        if key in rec and type(rec[key]) is not bool:
            return False
    if kind == "progress":  # most records of a long session: asked first
        if type(data) is not dict:
            return False
    elif kind == "user" or kind == "assistant":
        message = get("message")
        if type(message) is not dict:
            return False
        mget = message.get
        # The three message fields and each block's ids are written out, not asked of
        # _strings: a call per block costs more than the checks in it.
        for key in _MESSAGE_KEYS:
            value = mget(key)
            if value is not None and type(value) is not str:
                return False
        if "usage" in message and type(message["usage"]) is not dict:
            return False
        content = mget("content")
        if type(content) is list:
            for block in content:
                if type(block) is not dict:
                    return False
                bget = block.get
                kind_of_block = bget("type")
                if type(kind_of_block) is not str:
                    return False  # a block needs its type: the trace's reader asks for one
                for key in _OTHER_BLOCK_IDS:
                    value = bget(key)
                    if value is not None and type(value) is not str:
                        return False
                if kind_of_block == "tool_result":
                    inner = bget("content")
                    if inner is not None and type(inner) is not str and not _blocks_clean(inner):
                        return False
        elif type(content) is not str:
            return False
    elif kind == "attachment" and type(get("attachment")) is not dict:
        return False
    return "compactMetadata" not in rec or type(rec["compactMetadata"]) is dict


def clean_records(records: list[Record], report: ImportReport) -> list[Record]:
    """Every record that can be read, in the shapes the importer relies on."""
    out: list[Record] = []
    for item in records:
        number, rec = item
        if _is_clean(rec):
            out.append(item)  # the common case: the same record, not even a new pair
            continue
        clean = clean_record(rec, report)
        if clean is not None:
            out.append((number, clean))
    return out


def content_problem(content: Any, where: str = "content") -> str | None:
    """A message content: a string, or a list of blocks (objects with a string ``type``)."""
    if isinstance(content, str):
        return None
    if not isinstance(content, list):
        return f"{where} is {type(content).__name__}, not a string or a list of blocks"
    for i, block in enumerate(content):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            return f"{where}[{i}] is not a block"
        if block["type"] == "tool_result":
            inner = block.get("content")
            if inner is not None and (problem := content_problem(inner, f"{where}[{i}].content")):
                return problem
        for key in ("id", "tool_use_id", "name", "text"):
            if key in block and not isinstance(block[key], str):
                return f"{where}[{i}].{key} is not a string"
    return None


def api_log_record(rec: dict[str, Any]) -> str | None:
    """What is wrong with one request/response pair of an API log, or ``None``."""
    request, response = rec.get("request"), rec.get("response")
    if request is None:
        return None  # not a pair at all: the importer counts it as such
    if not isinstance(request, dict):
        return "request is not an object"
    if request.get("headers") is not None and not isinstance(request["headers"], dict):
        return "request.headers is not an object"
    body = request.get("body")
    if isinstance(body, dict):
        messages = body.get("messages")
        if messages is not None and not isinstance(messages, list):
            return "request.body.messages is not a list"
        for i, api in enumerate(messages or []):
            if not isinstance(api, dict) or not isinstance(api.get("role"), str):
                return f"request.body.messages[{i}] is not a message"
            if problem := content_problem(api.get("content"), f"messages[{i}].content"):
                return problem
        tools = body.get("tools")
        if tools is not None and not (
            isinstance(tools, list) and all(isinstance(t, dict) for t in tools)
        ):
            return "request.body.tools is not a list of objects"
    if response is not None and not isinstance(response, dict):
        return "response is not an object"
    if isinstance(response, dict):
        status = response.get("status_code")
        if status is not None and (isinstance(status, bool) or not isinstance(status, int)):
            return "response.status_code is not a number"
        answer = response.get("body")
        if isinstance(answer, dict) and answer.get("type") == "message":
            if problem := content_problem(answer.get("content"), "response.body.content"):
                return problem
            if answer.get("usage") is not None and not isinstance(answer["usage"], dict):
                return "response.body.usage is not an object"
        raw = response.get("body_raw")
        if raw is not None and not isinstance(raw, str):
            return "response.body_raw is not a string"
    return None
