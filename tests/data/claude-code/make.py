"""Writes the small Claude Code transcripts in this folder (run it to regenerate them).

Each file is one pattern seen in a real session, in the record shapes of the Claude Code version
its name gives (1.0.x: no ``sourceToolAssistantUUID``, sidechains inline; 2.0: agent files beside
the session; 2.1: ``sourceToolAssistantUUID``, ``slug``, ``subagents/`` folder). The words are our
own; only the shapes follow the real files. Run: ``python tests/data/claude-code/make.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
SESSION = "5e55a0f1-0000-4000-8000-000000000001"


class Transcript:
    """Appends records with the envelope of one Claude Code version, timestamps one second apart."""

    def __init__(
        self,
        version: str,
        sidechain: bool = False,
        agent_id: str | None = None,
        write_agent_id: bool = True,
    ) -> None:
        self.version, self.sidechain, self.agent_id = version, sidechain, agent_id
        self.write_agent_id = write_agent_id
        self.records: list[dict[str, Any]] = []
        self.clock = 0
        self.n = 0

    def _envelope(self, kind: str, parent: str | None, uuid: str | None = None) -> dict[str, Any]:
        self.clock += 1
        self.n += 1
        rec: dict[str, Any] = {
            "parentUuid": parent,
            "isSidechain": self.sidechain,
            "userType": "external",
            "cwd": "/home/dev/app",
            "sessionId": SESSION,
            "version": self.version,
            "gitBranch": "main",
            "type": kind,
            "uuid": uuid or f"{kind[:2]}-{self.agent_id or 'main'}-{self.n:03d}",
            "timestamp": f"2026-03-01T10:{self.clock // 60:02d}:{self.clock % 60:02d}.000Z",
        }
        if self.version.startswith("2.1"):
            rec["slug"] = "quiet-little-walrus"
        if self.agent_id and self.write_agent_id:
            rec["agentId"] = self.agent_id
        return rec

    def add(self, rec: dict[str, Any]) -> dict[str, Any]:
        self.records.append(rec)
        return rec

    def user(self, parent: str | None, content: Any, **extra: Any) -> str:
        rec = self._envelope("user", parent)
        rec["message"] = {"role": "user", "content": content}
        rec.update(extra)
        return self.add(rec)["uuid"]

    def assistant(
        self,
        parent: str | None,
        mid: str,
        block: dict[str, Any],
        model: str = "claude-sonnet-4-5",
        **extra: Any,
    ) -> str:
        rec = self._envelope("assistant", parent)
        rec["message"] = {
            "id": mid,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [block],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        rec["requestId"] = f"req_{mid}"
        rec.update(extra)
        return self.add(rec)["uuid"]

    def result(
        self,
        parent: str,
        tool_use_id: str,
        text: str,
        raw: Any = None,
        holder: str | None = None,
        is_error: bool = False,
    ) -> str:
        block: dict[str, Any] = {"tool_use_id": tool_use_id, "type": "tool_result", "content": text}
        if is_error:
            block["is_error"] = True
        extra: dict[str, Any] = {"toolUseResult": raw if raw is not None else text}
        if self.version.startswith("2.1"):
            extra["sourceToolAssistantUUID"] = holder or parent
        return self.user(parent, [block], **extra)

    def system(self, parent: str | None, subtype: str, **fields: Any) -> str:
        rec = self._envelope("system", parent)
        rec.update(subtype=subtype, level="info", **fields)
        return self.add(rec)["uuid"]

    def write(self, name: str, folder: Path = HERE) -> Path:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.records),
            encoding="utf-8",
        )
        return path


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def use(tid: str, name: str, **inp: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tid, "name": name, "input": inp}


def bash_raw(out: str) -> dict[str, Any]:
    return {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}


def compaction_1_0() -> None:
    """1.0.x: the summary is a root user record (isCompactSummary), no compact_boundary."""
    t = Transcript("1.0.98")
    u = t.user(None, "Count the lines of every Python file under src.")
    a = t.assistant(u, "msg_c1", use("toolu_c1", "Bash", command="wc -l src/*.py"))
    r = t.result(a, "toolu_c1", "  12 src/a.py\n  30 src/b.py\n  42 total", bash_raw("42 total"))
    a = t.assistant(r, "msg_c2", use("toolu_c2", "mcp__notes__save", text="42 lines"))
    r = t.result(a, "toolu_c2", "saved", [{"type": "text", "text": "saved"}])
    t.assistant(r, "msg_c3", text("There are 42 lines in src, and the note is saved."))
    s = t.user(
        None,
        "This session is being continued from a previous conversation that ran "
        "out of context. Summary: the user counted lines in src (42).",
        isCompactSummary=True,
    )
    u = t.user(s, "Now count the tests too.")
    a = t.assistant(u, "msg_c4", use("toolu_c3", "Bash", command="wc -l tests/*.py"))
    r = t.result(a, "toolu_c3", "  20 total", bash_raw("20 total"))
    t.assistant(r, "msg_c5", text("The tests have 20 lines."))
    t.write("v1.0-compaction-summary-root.jsonl")


def result_before_assistant() -> None:
    """2.1 streaming tool execution: a result's line is written before its own tool_use record."""
    t = Transcript("2.1.39")
    u = t.user(None, "Check the git status, then list the branches.", permissionMode="default")
    a1 = t.assistant(u, "msg_r1", use("toolu_r1", "Bash", command="git status"))
    r1 = t.result(a1, "toolu_r1", "nothing to commit", bash_raw("nothing to commit"))
    a2 = t.assistant(r1, "msg_r2", text("Clean. Now the branches."))
    # The result of toolu_r2 is written first; its parent is the record after it.
    later = "as-main-later"
    r2 = t.result(later, "toolu_r2", "* main\n  dev", bash_raw("* main\n  dev"))
    rec = t._envelope("assistant", a2, later)
    rec["message"] = {
        "id": "msg_r2",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [use("toolu_r2", "Bash", command="git branch")],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 7},
    }
    rec["requestId"] = "req_msg_r2"
    t.add(rec)
    # The clock agrees with the conversation, not with the file: the call came first.
    t.records[-2]["timestamp"], rec["timestamp"] = rec["timestamp"], t.records[-2]["timestamp"]
    t.assistant(r2, "msg_r3", text("Two branches: main and dev."))
    t.write("v2.1-result-before-assistant.jsonl")


def system_on_chain() -> None:
    """2.1: stop_hook_summary and api_error hang off an attachment; the next prompt off them."""
    t = Transcript("2.1.38")
    u = t.user(None, "Run the tests.")
    att = t._envelope("attachment", u)
    att["attachment"] = {"type": "todo_reminder", "content": [], "itemCount": 0}
    t.add(att)
    at = att["uuid"]
    a = t.assistant(at, "msg_s1", use("toolu_s1", "Bash", command="pytest -q"))
    r = t.result(a, "toolu_s1", "3 passed", bash_raw("3 passed"))
    a = t.assistant(r, "msg_s2", use("toolu_s2", "Bash", command="ruff check ."))
    r = t.result(a, "toolu_s2", "All checks passed!", bash_raw("All checks passed!"))
    t.assistant(r, "msg_s3", text("Tests pass and ruff is clean."))
    s = t.system(
        at,
        "stop_hook_summary",
        hookCount=1,
        hookInfos=[{"command": "true"}],
        hookErrors=[],
        preventedContinuation=False,
    )
    u2 = t.user(s, "Thanks. What is the Python version?")
    e = t.system(u2, "api_error", error={"status": 529}, retryInMs=500, retryAttempt=1)
    a = t.assistant(e, "msg_s4", use("toolu_s3", "Bash", command="python --version"))
    r = t.result(a, "toolu_s3", "Python 3.12.1", bash_raw("Python 3.12.1"))
    t.assistant(r, "msg_s5", text("Python 3.12.1."))
    t.write("v2.1-system-records-on-chain.jsonl")


def orphan_result() -> None:
    """2.1: a tool_result whose tool_use_id answers no tool_use (the chapter's id mismatch)."""
    t = Transcript("2.1.38")
    u = t.user(None, "Read the README.")
    a = t.assistant(u, "msg_o1", use("toolu_o1", "Read", file_path="/home/dev/app/README.md"))
    t.result(a, "toolu_ghost", "     1→# app", holder=a)
    r = t.result(
        a,
        "toolu_o1",
        "     1→# app",
        {"type": "text", "file": {"filePath": "README.md", "content": "# app"}},
    )
    t.assistant(r, "msg_o2", text("The README holds only a title."))
    t.write("v2.1-orphan-result.jsonl")


def api_error() -> None:
    """2.1: the call failed; Claude Code wrote a <synthetic> API-error message."""
    t = Transcript("2.1.38")
    u = t.user(None, "Hello there.")
    t.assistant(
        u,
        "err-0001",
        text("Invalid API key · Please run /login"),
        model="<synthetic>",
        isApiErrorMessage=True,
        error="authentication_failed",
    )
    t.write("v2.1-api-error.jsonl")


def small_things() -> None:
    """2.1: an image before the prompt, an unknown record kind, a tool that never returned."""
    t = Transcript("2.1.38")
    t.add({"type": "brand-new-kind", "sessionId": SESSION, "whatever": 1})
    t.add({"type": "file-history-snapshot", "messageId": "x", "snapshot": {}})
    u = t.user(
        None,
        [
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
            },
            text("这张截图里的报错是什么意思？我已经重启过两次了，还是一样。"),
        ],
    )
    a = t.assistant(u, "msg_p1", use("toolu_p1", "Bash", command="sleep 600"))
    del a
    t.write("v2.1-image-prompt-unfinished-tool.jsonl")


def sidechain_without_prompt() -> None:
    """2.1 subagent file whose first record (the prompt) is missing."""
    t = Transcript("2.1.39", sidechain=True, agent_id="a0c0ffe")
    a = t.assistant("us-gone", "msg_q1", use("toolu_q1", "Glob", pattern="**/*.md"))
    r = t.result(a, "toolu_q1", "README.md", {"filenames": ["README.md"], "numFiles": 1})
    t.assistant(r, "msg_q2", text("One markdown file: README.md."))
    t.write("v2.1-subagent-without-prompt.jsonl")


def _subagent(t: Transcript, prompt: str, mid: str, tid: str) -> None:
    u = t.user(None, prompt)
    a = t.assistant(u, f"{mid}a", use(tid, "Grep", pattern="TODO", path="."))
    r = t.result(a, tid, "src/a.py:3: # TODO", {"mode": "content", "numFiles": 1})
    t.assistant(r, f"{mid}b", text("One TODO, in src/a.py line 3."))


def layout_2_0(folder: Path) -> None:
    """2.0: the subagent's file agent-<id>.jsonl lies beside the session file."""
    t = Transcript("2.0.30")
    u = t.user(None, [text("Find the TODOs with a subagent.")])
    a = t.assistant(
        u,
        "msg_l1",
        use(
            "toolu_l1",
            "Task",
            description="find TODOs",
            prompt="Find every TODO.",
            subagent_type="general-purpose",
        ),
    )
    r = t.result(
        a,
        "toolu_l1",
        "One TODO, in src/a.py line 3.",
        {
            "status": "completed",
            "agentId": "b1d2e3f4",
            "prompt": "Find every TODO.",
            "content": [text("One TODO, in src/a.py line 3.")],
            "totalToolUseCount": 1,
        },
    )
    t.assistant(r, "msg_l2", text("There is one TODO, in src/a.py."))
    t.write(f"{SESSION}.jsonl", folder)
    sub = Transcript("2.0.30", sidechain=True, agent_id="b1d2e3f4")
    _subagent(sub, "Find every TODO.", "msg_la", "toolu_la")
    sub.write("agent-b1d2e3f4.jsonl", folder)
    (folder / "0a0a0a0a-0000-4000-8000-00000000000e.jsonl").write_bytes(b"")


def inline_sidechain_1_0() -> None:
    """1.0.x: the subagent's records sit inline in the session file, isSidechain true."""
    t = Transcript("1.0.98")
    u = t.user(None, "Use a subagent to find the TODOs.")
    a = t.assistant(
        u, "msg_i1", use("toolu_i1", "Task", description="find TODOs", prompt="Find every TODO.")
    )
    sub = Transcript("1.0.98", sidechain=True, agent_id="side", write_agent_id=False)
    sub.clock = t.clock
    _subagent(sub, "Find every TODO.", "msg_ia", "toolu_ia")
    t.records += sub.records
    t.clock = sub.clock
    r = t.result(
        a,
        "toolu_i1",
        "One TODO, in src/a.py line 3.",
        {"content": [text("One TODO, in src/a.py line 3.")], "totalToolUseCount": 1},
    )
    t.assistant(r, "msg_i2", text("There is one TODO, in src/a.py."))
    t.write("v1.0-inline-sidechain.jsonl")


def polling() -> None:
    """2.1: BashOutput polled with the same input until the background job is done."""
    t = Transcript("2.1.38")
    u = t.user(None, "Start the build in the background and wait for it.")
    a = t.assistant(u, "msg_b0", use("toolu_b0", "Bash", command="make", run_in_background=True))
    parent = t.result(
        a, "toolu_b0", "Command running in background with ID: 7", {"backgroundTaskId": "7"}
    )
    for k, out in enumerate(["building 1/3", "building 2/3", "building 3/3", "done"], start=1):
        a = t.assistant(parent, f"msg_b{k}", use(f"toolu_b{k}", "BashOutput", bash_id="7"))
        parent = t.result(
            a,
            f"toolu_b{k}",
            f"<status>running</status><stdout>{out}</stdout>",
            {"stdout": out, "status": "running"},
        )
    t.assistant(parent, "msg_b9", text("The build is done."))
    t.write("v2.1-polling-bash-output.jsonl")


def main() -> None:
    compaction_1_0()
    result_before_assistant()
    system_on_chain()
    orphan_result()
    api_error()
    small_things()
    sidechain_without_prompt()
    inline_sidechain_1_0()
    polling()
    layout_2_0(HERE / "layout-2.0")


if __name__ == "__main__":
    main()
