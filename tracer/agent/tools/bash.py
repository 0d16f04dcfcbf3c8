"""Bash: run a command in the session's workspace.

Mirrors Claude Code's ``tools/BashTool``. The chapter says the tool "joins stdout and stderr";
we capture the two apart (the raw output keeps both) and join them for the model. Claude Code
2.1.88 instead merges them at the file-descriptor level; the guide explains the difference.
Output is held only up to 1 MB a stream; a longer stdout rolls over to a file in
``tool-results/`` (Claude Code's ``persistedOutputPath``) and the model sees a
``<persisted-output>`` preview, so the trace line stays far under the reader's limit.
A non-zero exit is an error whose content starts ``Exit code N``, except for the few commands
whose exit 1 is an answer, not a failure (2.1.88's ``interpretCommandResult`` in
``commandSemantics.ts``), each with its own words: grep and rg "No matches found", diff "Files
differ", test and ``[`` "Condition is false", find "Some directories were inaccessible". Like
2.1.88, the command judged is the LAST one of a pipeline or list (``git log | grep x`` is
judged as grep), split on the shell's control operators.

A command that runs past its timeout is killed and its result says so
(``<error>Command was aborted before completion</error>``, ``is_error``): 2.1.88's words for an
interrupted command, which returns normally and reaches ``addToolResult``. 2.1.88 itself moves a
command that times out to the background instead ("Command running in background with ID: …")
unless background tasks are off; tracer has no background tasks (``differences.yaml``).
"""

from __future__ import annotations

import re
import shlex
import time
from typing import Any, ClassVar

from tracer.agent.processes import KEPT_OUTPUT_BYTES, run_command
from tracer.agent.sizes import PREVIEW_SIZE_CHARS, format_file_size
from tracer.agent.tools.base import Tool, ToolContext

_READ_ONLY_COMMANDS = frozenset(
    {
        "ls",
        "cat",
        "head",
        "tail",
        "wc",
        "pwd",
        "echo",
        "grep",
        "rg",
        "find",
        "stat",
        "file",
        "which",
        "date",
        "tree",
        "du",
        "df",
    }
)
_READ_ONLY_GIT = frozenset({"status", "diff", "log", "show", "branch", "rev-parse", "ls-files"})
#: What exit code 1 means for the commands where it is not an error.
EXIT_ONE_MEANS = {
    "grep": "No matches found",
    "rg": "No matches found",
    "diff": "Files differ",
    "test": "Condition is false",
    "[": "Condition is false",
    "find": "Some directories were inaccessible",
}
#: The shell's control operators: what separates the commands of a pipeline or a list.
_CONTROL_OPERATORS = frozenset({"|", "||", "&&", ";", "&", "|&", ";;", "\n"})
_FD_REDIRECT = re.compile(r"\d*>&\d*-?|&>>?|\d*<&\d*-?")
_SHELL_OPERATORS = (";", "&&", "||", "|", ">", "<", "`", "$(")


def _first_words(command: str) -> list[str]:
    try:
        return shlex.split(command)[:2]
    except ValueError:
        return []


def last_command_name(command: str) -> str:
    """The name of the last command of a pipeline or list, the one 2.1.88 judges the exit code
    by (``heuristicallyExtractBaseCommand``): ``git log | grep x`` gives ``grep``."""
    # A redirection's & (2>&1, &>file) is no operator: drop those first.
    plain = _FD_REDIRECT.sub(" ", command.replace("\n", " ; "))
    lexer = shlex.shlex(plain, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return ""
    name = ""  # the first word of the last non-empty segment
    starts = True
    for token in tokens:
        if token in _CONTROL_OPERATORS:
            starts = True
        elif starts:
            name, starts = token, False
    return name


class BashTool(Tool):
    name: ClassVar[str] = "Bash"
    description: ClassVar[str] = (
        "Run a bash command in the session's workspace and return its output. "
        "Non-zero exit codes are reported as errors."
    )
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command to run"},
            "timeout": {"type": "number", "description": "Timeout in milliseconds (max 600000)"},
            "description": {
                "type": "string",
                "description": "What the command does, in 5-10 words",
            },
        },
        "required": ["command"],
        "additionalProperties": False,
    }
    max_result_size_chars: ClassVar[float] = 30_000

    def is_concurrency_safe(self, tool_input: dict[str, Any]) -> bool:
        """Only plainly read-only commands may run beside others (Claude Code: ``isReadOnly``)."""
        command = str(tool_input.get("command", ""))
        if any(op in command for op in _SHELL_OPERATORS):
            return False
        words = _first_words(command)
        if not words:
            return False
        if words[0] == "git":
            return len(words) > 1 and words[1] in _READ_ONLY_GIT
        return words[0] in _READ_ONLY_COMMANDS

    def call(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        command = tool_input["command"]
        timeout_s = (
            min(float(tool_input.get("timeout") or ctx.bash_timeout_s * 1000), 600_000) / 1000
        )
        started = time.monotonic()
        # The command runs with an allowlisted environment (and in a sandbox when the session
        # has one); it and everything it started are killed when it ends, times out or Ctrl-C
        # arrives (see tracer.agent.processes).
        notes: list[str] = []
        with ctx.launch(["bash", "-c", command], notes) as (argv, fds):
            done = run_command(
                argv,
                cwd=ctx.workspace,
                env=ctx.command_environ(),
                timeout=timeout_s,
                running=ctx.running,
                pass_fds=fds,
                overflow_dir=ctx.results_dir,
            )
        interrupted = done.timed_out
        # A command killed by signal N reports -N here; a shell would say 128 + N.
        code = (
            None
            if interrupted
            else (done.returncode if done.returncode >= 0 else 128 - done.returncode)
        )
        output: dict[str, Any] = {
            "stdout": done.stdout.decode("utf-8", "replace"),
            "stderr": done.stderr.decode("utf-8", "replace"),
            "exit_code": code,
            "interrupted": interrupted,
            "duration_ms": int((time.monotonic() - started) * 1000),
        }
        if done.stdout_size > len(done.stdout):
            # Claude Code's Out fields: the output rolled over to a file.
            output["stdoutTruncated"] = True
            output["persistedOutputSize"] = done.stdout_size
            if done.overflow is not None:
                output["persistedOutputPath"] = str(done.overflow)
        if done.stderr_size > len(done.stderr):
            output["stderr"] += f"\n[stderr cut at {len(done.stderr)} of {done.stderr_size} bytes]"
        over = ctx.check_workspace()
        # What the walls did, said where the model and the trace see it.
        for note in [*notes, *([f"tracer: {over}"] if over else [])]:
            output["stderr"] = f"{output['stderr'].rstrip(chr(10))}\n{note}".lstrip("\n")
        name = last_command_name(command)
        if code == 1 and name in EXIT_ONE_MEANS:
            # For these commands exit 1 is an answer, not a failure, and each means its own.
            output["return_code_interpretation"] = EXIT_ONE_MEANS[name]
        return output

    def map_result(self, output: dict[str, Any], tool_use_id: str) -> dict[str, Any]:
        stdout = output.get("stdout", "").lstrip("\n").rstrip()
        if output.get("stdoutTruncated"):
            stdout = _rolled_over(stdout, output)
        parts = [stdout, output.get("stderr", "").strip()]
        if output.get("interrupted"):
            parts.append("<error>Command was aborted before completion</error>")
        text = "\n".join(p for p in parts if p)
        is_error = bool(output.get("interrupted"))
        if output.get("exit_code") and not output.get("return_code_interpretation"):
            text = f"Exit code {output['exit_code']}\n{text}".rstrip("\n")
            is_error = True
        return {
            "type": "tool_result",
            "content": text,
            "is_error": is_error,
            "tool_use_id": tool_use_id,
        }


def _rolled_over(stdout: str, output: dict[str, Any]) -> str:
    """The ``<persisted-output>`` preview that stands for a stdout too large to hold."""
    where = output.get("persistedOutputPath")
    size = format_file_size(int(output.get("persistedOutputSize", 0)))
    kept = (
        f"Full output saved to: {where} (its first {format_file_size(KEPT_OUTPUT_BYTES)})"
        if where
        else "Only its start was kept"
    )
    return (
        f"<persisted-output>\nOutput too large ({size}). {kept}\n\n"
        f"Preview (first 2KB):\n{stdout[:PREVIEW_SIZE_CHARS]}\n...\n</persisted-output>"
    )
