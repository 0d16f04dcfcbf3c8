"""Writes the small Claude Code transcripts in this folder (run it to regenerate them).

Each file is one pattern seen in a real session, in the record shapes of the Claude Code version
its name gives (1.0.x: no ``sourceToolAssistantUUID``, sidechains inline; 2.0: agent files beside
the session; 2.1: ``sourceToolAssistantUUID``, ``slug``, ``subagents/`` folder). The words are our
own; only the shapes follow the real files. Run: ``python tests/data/claude-code/make.py``
(issue 34's shapes are written by ``make_record_kinds.py`` beside it).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
SESSION = "5e55a0f1-0000-4000-8000-000000000001"
START = datetime(2026, 3, 1, 10)


class Transcript:
    """Appends records with the envelope of one Claude Code version, timestamps one second apart."""

    def __init__(
        self,
        version: str,
        sidechain: bool = False,
        agent_id: str | None = None,
        write_agent_id: bool = True,
        session: str = SESSION,
    ) -> None:
        self.session = session
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
            "sessionId": self.session,
            "version": self.version,
            "gitBranch": "main",
            "type": kind,
            "uuid": uuid or f"{kind[:2]}-{self.agent_id or 'main'}-{self.n:03d}",
            "timestamp": (START + timedelta(seconds=self.clock)).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
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
        usage: dict[str, Any] | None = None,
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
            "usage": usage or {"input_tokens": 10, "output_tokens": 5},
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

    def attachment(self, parent: str, attachment: dict[str, Any]) -> str:
        rec = self._envelope("attachment", parent)
        rec["attachment"] = attachment
        return self.add(rec)["uuid"]

    def progress(self, parent: str, data: dict[str, Any], **extra: Any) -> str:
        rec = self._envelope("progress", parent)
        rec["data"] = data
        rec.update(extra)
        return self.add(rec)["uuid"]

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


def tokens(fresh: int, read: int, made: int, out: int) -> dict[str, Any]:
    """A usage block as Claude Code copies it from the API."""
    return {
        "input_tokens": fresh,
        "cache_creation_input_tokens": made,
        "cache_read_input_tokens": read,
        "cache_creation": {"ephemeral_5m_input_tokens": made, "ephemeral_1h_input_tokens": 0},
        "output_tokens": out,
        "service_tier": "standard",
    }


def clear_context() -> None:
    """2.1: plan mode's "clear context", then /clear: three conversations under three roots.

    The tokens show it: each new root's first request reads a small, fresh context.
    """
    t = Transcript("2.1.41")
    u = t.user(None, "Plan how to add a --verbose flag to the CLI.", permissionMode="plan")
    a = t.assistant(
        u,
        "msg_k1",
        use("toolu_k1", "Read", file_path="/home/dev/app/cli.py"),
        usage=tokens(3, 14000, 2100, 60),
    )
    r = t.result(a, "toolu_k1", "     1→import argparse", {"type": "text", "file": {}})
    a = t.assistant(
        r,
        "msg_k2",
        use("toolu_k2", "ExitPlanMode", plan="1. add the flag"),
        usage=tokens(2, 16100, 420, 90),
    )
    t.result(a, "toolu_k2", "User approved the plan", {"plan": "1. add the flag"})
    # The new conversation: a new root, written by Claude Code itself.
    n = t.user(None, [text("[Request interrupted by user for tool use]")])
    n = t.user(n, "Implement the following plan:\n\n1. add the flag")
    a = t.assistant(
        n,
        "msg_k3",
        use("toolu_k3", "Edit", file_path="cli.py", old_string="a", new_string="b"),
        usage=tokens(4, 9000, 900, 120),
    )
    r = t.result(a, "toolu_k3", "The file cli.py has been updated.", {"filePath": "cli.py"})
    a = t.assistant(
        r,
        "msg_k4",
        use("toolu_k4", "Bash", command="python cli.py --verbose"),
        usage=tokens(1, 9900, 300, 40),
    )
    r = t.result(a, "toolu_k4", "verbose on", bash_raw("verbose on"))
    t.assistant(r, "msg_k5", text("The flag works."), usage=tokens(1, 10200, 80, 12))
    c = t.user(
        None,
        "<command-name>/clear</command-name>\n<command-message>clear</command-message>"
        "\n<command-args></command-args>",
    )
    c = t.user(c, "<local-command-stdout></local-command-stdout>")
    u = t.user(c, "How many Python files are there?")
    a = t.assistant(
        u, "msg_k6", use("toolu_k6", "Glob", pattern="**/*.py"), usage=tokens(5, 8800, 0, 30)
    )
    r = t.result(a, "toolu_k6", "cli.py\nlib.py", {"filenames": ["cli.py", "lib.py"]})
    t.assistant(r, "msg_k7", text("Two."), usage=tokens(1, 8850, 20, 3))
    t.write("v2.1-clear-context-three-conversations.jsonl")


CAVEAT = (
    "Caveat: The messages below were generated by the user while running local commands. "
    "DO NOT respond to these messages or otherwise consider them in your response unless the "
    "user explicitly asks you to."
)


def local_commands_1_0() -> None:
    """1.0.x: each /model hangs off the one caveat record written before the first of them."""
    t = Transcript("1.0.51")
    u = t.user(None, "List the files.")
    a = t.assistant(u, "msg_m1", use("toolu_m1", "LS", path="/home/dev/app"))
    r = t.result(a, "toolu_m1", "- cli.py\n- lib.py", "- cli.py\n- lib.py")
    a = t.assistant(r, "msg_m2", text("Two files."))
    cav = t.user(a, CAVEAT, isMeta=True)
    c = t.user(cav, "<command-name>/model</command-name>\n<command-message>model</command-message>")
    c = t.user(c, "<local-command-stdout>Set model to opus</local-command-stdout>")
    u = t.user(c, "Read lib.py and run its tests.")
    a = t.assistant(u, "msg_m3", use("toolu_m3", "Read", file_path="/home/dev/app/lib.py"))
    r = t.result(a, "toolu_m3", "     1→def f(): pass", {"type": "text", "file": {}})
    a = t.assistant(r, "msg_m4", use("toolu_m4", "Bash", command="pytest -q"))
    r = t.result(a, "toolu_m4", "1 passed", bash_raw("1 passed"))
    a = t.assistant(r, "msg_m5", text("One test, passing."))
    c = t.user(cav, "<command-name>/model</command-name>\n<command-message>model</command-message>")
    c = t.user(c, "<local-command-stdout>Set model to sonnet</local-command-stdout>")
    u = t.user(c, "Now lint it.")
    a = t.assistant(u, "msg_m6", use("toolu_m6", "Bash", command="ruff check lib.py"))
    r = t.result(a, "toolu_m6", "All checks passed!", bash_raw("All checks passed!"))
    a = t.assistant(r, "msg_m7", text("Clean."))
    # Commands that never reach a request: /status and /doctor after the last answer.
    c = t.user(a, "<command-name>/status</command-name>\n<command-message>status</command-message>")
    c = t.user(c, "<local-command-stdout>Model: sonnet</local-command-stdout>")
    c = t.user(a, "<command-name>/doctor</command-name>\n<command-message>doctor</command-message>")
    t.write("v1.0-local-commands.jsonl")


def retried_task_1_0() -> None:
    """1.0.x: the same Task prompt sent three times; the first two calls were interrupted."""
    t = Transcript("1.0.98")
    prompt = "Find every TODO."
    u = t.user(None, "Find the TODOs with a subagent.")
    parent = u
    for k, again in enumerate(["Try again.", "Once more, please."]):
        a = t.assistant(
            parent, f"msg_t{k}", use(f"toolu_t{k}", "Task", description="TODOs", prompt=prompt)
        )
        if k == 0:  # the first run got as far as one tool call before the interruption
            side = Transcript("1.0.98", sidechain=True, agent_id=f"s{k}", write_agent_id=False)
            side.clock, side.n = t.clock, t.n
            su = side.user(None, prompt)
            side.assistant(su, "msg_ts0", use("toolu_ts0", "Grep", pattern="TODO"))
            t.records += side.records
            t.clock, t.n = side.clock, side.n
        r = t.result(
            a,
            f"toolu_t{k}",
            "[Request interrupted by user for tool use]",
            "Error: [Request interrupted by user for tool use]",
            is_error=True,
        )
        i = t.user(r, [text("[Request interrupted by user for tool use]")])
        t.clock += 3600  # an hour later
        parent = t.user(i, again)
    a = t.assistant(parent, "msg_t2", use("toolu_t2", "Task", description="TODOs", prompt=prompt))
    side = Transcript("1.0.98", sidechain=True, agent_id="s2", write_agent_id=False)
    side.clock, side.n = t.clock, t.n
    _subagent(side, prompt, "msg_tz", "toolu_tz")
    t.records += side.records
    t.clock, t.n = side.clock, side.n
    r = t.result(
        a,
        "toolu_t2",
        "One TODO, in src/a.py line 3.",
        {"content": [text("One TODO, in src/a.py line 3.")], "totalToolUseCount": 1},
    )
    t.assistant(r, "msg_t3", text("There is one TODO, in src/a.py."))
    t.write("v1.0-task-retried-same-prompt.jsonl")


def warmup_2_0(folder: Path) -> None:
    """2.0.x: a start-up "Warmup" sidechain with no Task call; a Task call the next day."""
    session = "5e55a0f1-0000-4000-8000-0000000000aa"
    t = Transcript("2.0.43", session=session)
    w = Transcript("2.0.43", sidechain=True, agent_id="c0ffee01", session=session)
    wu = w.user(None, "Warmup")
    w.assistant(wu, "msg_w0", text("Ready to help."), model="claude-haiku-4-5")
    t.records += w.records
    t.n, t.clock = w.n, w.clock + 86400
    u = t.user(None, [text("Find the TODOs with a subagent.")])
    a = t.assistant(
        u,
        "msg_w1",
        use(
            "toolu_w1",
            "Task",
            description="find TODOs",
            prompt="Find every TODO.",
            subagent_type="Explore",
        ),
    )
    r = t.result(
        a,
        "toolu_w1",
        "One TODO, in src/a.py line 3.",
        {
            "status": "completed",
            "agentId": "d1e2f3a4",
            "prompt": "Find every TODO.",
            "content": [text("One TODO, in src/a.py line 3.")],
            "totalToolUseCount": 1,
        },
    )
    t.assistant(r, "msg_w2", text("There is one TODO, in src/a.py."))
    t.write(f"{session}.jsonl", folder)
    sub = Transcript("2.0.43", sidechain=True, agent_id="d1e2f3a4", session=session)
    sub.clock = t.clock - 3
    _subagent(sub, "Find every TODO.", "msg_wa", "toolu_wa")
    sub.write("agent-d1e2f3a4.jsonl", folder)


def progress_only_2_1() -> None:
    """2.1: the subagent's run exists only as agent_progress records in the parent file."""
    t = Transcript("2.1.50")
    u = t.user(None, "Have a subagent count the TODOs and read the first file.")
    a = t.assistant(
        u,
        "msg_g1",
        use(
            "toolu_g1",
            "Task",
            description="count TODOs",
            prompt="Count the TODOs.",
            subagent_type="general-purpose",
        ),
    )
    agent = "a5150e1"
    steps: list[dict[str, Any]] = [
        {"type": "user", "message": {"role": "user", "content": [text("Count the TODOs.")]}},
        {
            "type": "assistant",
            "message": {
                "id": "msg_ga",
                "role": "assistant",
                "type": "message",
                "model": "claude-haiku-4-5",
                "content": [use("toolu_ga", "Grep", pattern="TODO")],
                "stop_reason": None,
                "usage": tokens(3, 0, 5000, 20),
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_ga", "content": "src/a.py:3"}
                ],
            },
            "toolUseResult": {"mode": "content", "numFiles": 1},
        },
        {
            "type": "assistant",
            "message": {
                "id": "msg_gb",
                "role": "assistant",
                "type": "message",
                "model": "claude-haiku-4-5",
                "content": [use("toolu_gb", "Read", file_path="src/a.py")],
                "stop_reason": None,
                "usage": tokens(2, 5000, 40, 18),
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_gb", "content": "     3→# TODO"}
                ],
            },
        },
        {
            "type": "assistant",
            "message": {
                "id": "msg_gc",
                "role": "assistant",
                "type": "message",
                "model": "claude-haiku-4-5",
                "content": [text("One TODO, in src/a.py.")],
                "stop_reason": None,
                "usage": tokens(1, 5040, 30, 9),
            },
        },
    ]
    parent = a
    for k, step in enumerate(steps):
        step = {**step, "uuid": f"sub-{k:02d}", "timestamp": f"2026-03-01T10:00:{10 + k:02d}.000Z"}
        parent = t.progress(
            parent,
            {
                "message": step,
                "normalizedMessages": [],
                "type": "agent_progress",
                "prompt": "Count the TODOs.",
                "agentId": agent,
            },
            toolUseID=f"agent_msg_{k}",
            parentToolUseID="toolu_g1",
        )
    r = t.result(
        a,
        "toolu_g1",
        "One TODO, in src/a.py.\nagentId: a5150e1",
        {
            "status": "completed",
            "agentId": agent,
            "prompt": "Count the TODOs.",
            "content": [text("One TODO, in src/a.py.")],
            "totalToolUseCount": 2,
        },
    )
    t.records[-1]["parentUuid"] = a
    t.assistant(r, "msg_g2", text("The subagent found one TODO."))
    t.write("v2.1-subagent-only-in-progress-records.jsonl")


def hook_context_2_1() -> None:
    """2.1: PreToolUse and PostToolUse hooks add text for the model, on side branches."""
    t = Transcript("2.1.45")
    u = t.user(None, "Run the tests.")
    a = t.assistant(u, "msg_h1", use("toolu_h1", "Bash", command="pytest -q"))
    t.attachment(
        a,
        {
            "type": "hook_additional_context",
            "hookName": "PreToolUse:Bash",
            "toolUseID": "toolu_h1",
            "hookEvent": "PreToolUse",
            "content": ["The test database is reset before each run."],
        },
    )
    r = t.result(a, "toolu_h1", "3 passed", bash_raw("3 passed"))
    t.attachment(
        r,
        {
            "type": "hook_additional_context",
            "hookName": "PostToolUse:Bash",
            "toolUseID": "toolu_h1",
            "hookEvent": "PostToolUse",
            "content": ["Remember to update CHANGELOG.md."],
        },
    )
    a = t.assistant(r, "msg_h2", text("3 passed. I will note it in CHANGELOG.md."))
    t.write("v2.1-hook-context-on-side-branches.jsonl")


def broken_stream_2_1() -> None:
    """2.1: a stream broke off and the request was resent; the cut-off text stayed in the file.
    Later a turn's user input (about 40 tokens) was never written."""
    t = Transcript("2.1.47")
    u = t.user(None, "Why does the build fail?")
    a = t.assistant(u, "msg_x1", text("Let me look at the"), usage=tokens(3, 12000, 500, 1))
    a = t.assistant(
        a, "msg_x2", text("I will read the build log first."), usage=tokens(3, 12000, 500, 14)
    )
    a = t.assistant(
        a,
        "msg_x2",
        use("toolu_x2", "Bash", command="make 2>&1 | tail -3"),
        usage=tokens(3, 12000, 500, 60),
    )
    r = t.result(a, "toolu_x2", "error: missing lib.h", bash_raw("error: missing lib.h"))
    a = t.assistant(
        r, "msg_x3", text("lib.h is missing from the include path."), usage=tokens(1, 12560, 90, 25)
    )
    # The next answer's request counted 12,719 prompt tokens: the last request's 12,651, its
    # answer's 25, and 43 more: the user wrote something the transcript never got.
    t.assistant(a, "msg_x4", text("Then add -Iinclude to CFLAGS."), usage=tokens(69, 12650, 0, 11))
    t.write("v2.1-resent-after-broken-stream.jsonl")


def continued_elsewhere_2_1() -> None:
    """2.1.260: the second half of a session whose start was written to another file (the
    project's folder was renamed while it ran). Its first record is the result of a Bash call
    made in the first half; the file ends with the control records newer versions write."""
    t = Transcript("2.1.260")
    first_half = "as-main-in-the-other-file"
    r = t.result(first_half, "toolu_w1", "renamed 3 folders", bash_raw("renamed 3 folders"))
    t.records[-1].update(entrypoint="claude-desktop", promptId="prompt-0001")
    a = t.assistant(
        r, "msg_w2", use("toolu_w2", "Bash", command="ls"), usage=tokens(3, 9000, 40, 9)
    )
    r = t.result(a, "toolu_w2", "app\nlib", bash_raw("app\nlib"))
    t.assistant(r, "msg_w3", text("Both folders are back."), usage=tokens(3, 9100, 30, 6))
    for control in (
        {"type": "last-prompt", "lastPrompt": "Put the folders back."},
        {"type": "custom-title", "customTitle": "Folders"},
        {"type": "atis-latch", "atis": ""},
        {"type": "bridge-session", "bridgeSessionId": "cse_0001", "lastSequenceNum": 0},
    ):
        t.add({**control, "sessionId": t.session})
    t.write("v2.1-continued-from-another-file.jsonl")


def compaction_unwritten_parent_2_1() -> None:
    """2.1: an automatic compaction right after a tool result, whose boundary's logical parent is
    a message Claude Code held but never wrote (it names the last message of the list it
    compacted; an attachment of that list is not written to the file). Nothing in the file links
    the first half to the second but their order."""
    t = Transcript("2.1.39")
    u = t.user(None, "Which test is the slowest?")
    a = t.assistant(
        u,
        "msg_v1",
        use("toolu_v1", "Bash", command="pytest --durations=1"),
        usage=tokens(3, 11000, 600, 30),
    )
    hook = {"type": "hook_progress", "hookEvent": "PreToolUse", "hookName": "PreToolUse:Bash"}
    t.progress(a, hook, toolUseID="toolu_v1", parentToolUseID="toolu_v1")
    r = t.result(a, "toolu_v1", "2.31s call test_sync.py::test_big", bash_raw("2.31s"))
    a = t.assistant(
        r,
        "msg_v2",
        use("toolu_v2", "Read", file_path="/home/dev/app/test_sync.py"),
        usage=tokens(1, 11600, 200, 25),
    )
    t.result(a, "toolu_v2", "     1→def test_big():", {"type": "text", "file": {}})
    t.system(
        None,
        "compact_boundary",
        logicalParentUuid="at-main-never-written",
        content="Conversation compacted",
        isMeta=False,
        compactMetadata={"trigger": "auto", "preTokens": 167000},
    )
    s = t.user(
        t.records[-1]["uuid"],
        "This session is being continued from a previous conversation that ran out of "
        "context. Summary: test_big in test_sync.py is the slowest test (2.31s).",
        isVisibleInTranscriptOnly=True,
        isCompactSummary=True,
    )
    a = t.assistant(
        s,
        "msg_v3",
        use("toolu_v3", "Bash", command="pytest test_sync.py -q"),
        usage=tokens(3, 0, 5200, 20),
    )
    r = t.result(a, "toolu_v3", "1 passed in 2.30s", bash_raw("1 passed"))
    t.assistant(r, "msg_v4", text("test_big takes 2.3 seconds."), usage=tokens(1, 5200, 60, 9))
    t.write("v2.1-compaction-unwritten-logical-parent.jsonl")


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
    clear_context()
    local_commands_1_0()
    retried_task_1_0()
    warmup_2_0(HERE / "layout-2.0-warmup")
    progress_only_2_1()
    hook_context_2_1()
    broken_stream_2_1()
    continued_elsewhere_2_1()
    compaction_unwritten_parent_2_1()


if __name__ == "__main__":
    main()
