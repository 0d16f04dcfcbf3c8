"""Which code path builds each kind of error result in Claude Code 2.1.88: one table, one voice.

The book says an error travels almost like a success, with ``is_error: true``. Seen from the
model that holds: every failure is a ``tool_result`` block in a user message, appended and resent
like any other. In the 2.1.88 code, though, only a tool call that *returned* reaches
``addToolResult`` (which maps the output and wraps it with ``createUserMessage``). Every failure
below is built on another path of ``services/tools/toolExecution.ts``, which makes its user message
itself (the book's own error example shows that early return: ``createUserMessage`` called with
the ``<tool_use_error>`` block, no ``addToolResult``). Whether the content carries the
``<tool_use_error>`` tag depends on the kind, not on the path.

tracer wraps every result, failures too, with its ``add_tool_result``, so each result has a
wrapping step to look at; the replay's wrapping view, the debug console's "tracer only" marker and
the guide's errors section all read this table, so they say the same thing. The ``kind`` keys are
the ``error_kind`` values of a ``tool_run`` event.

Two 2.1.88 forms tracer never produces, for completeness: an unexpected exception in
``runToolUse`` itself is tagged (``<tool_use_error>Error calling tool (X): …</tool_use_error>``),
unlike an error thrown by the tool's ``call()``; and the streaming executor's synthetic results
for a discarded or cancelled sibling call are tagged too.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ErrorPath:
    """How one kind of result reaches its user message in 2.1.88."""

    kind: str | None
    """The ``tool_run`` event's ``error_kind`` (``None``: the call returned)."""
    content: str
    """What the model reads, in short."""
    tagged: bool
    """Whether the content is wrapped in ``<tool_use_error>``."""
    via_add_tool_result: bool
    en: str
    zh: str


PATHS: dict[str | None, ErrorPath] = {
    path.kind: path
    for path in (
        ErrorPath(
            None,
            "the mapped output",
            False,
            True,
            "the tool returned: addToolResult maps the output and wraps it with "
            "createUserMessage (a grep-like exit 1 is a return too, not an error)",
            "工具正常返回：addToolResult 翻译输出，再用 createUserMessage 包装"
            "（grep 一类命令的退出码 1 也算正常返回，不算错误）",
        ),
        ErrorPath(
            "input_validation",
            "<tool_use_error>InputValidationError: …</tool_use_error>",
            True,
            False,
            "the input fails the tool's schema before anything runs: checkPermissionsAndCallTool "
            "returns early and builds the user message itself, without addToolResult",
            "输入不符合工具的参数定义，什么都还没执行：checkPermissionsAndCallTool 提前返回，"
            "自己构造用户消息，不经过 addToolResult",
        ),
        ErrorPath(
            "validate_input",
            "<tool_use_error>…</tool_use_error>",
            True,
            False,
            "the tool's own validateInput refuses the input (e.g. Edit's \"String to replace not "
            'found in file.") before it runs: an early return, without addToolResult',
            "工具自己的 validateInput 在执行前拒绝了输入（比如 Edit 找不到要替换的字符串）："
            "提前返回，不经过 addToolResult",
        ),
        ErrorPath(
            "unknown_tool",
            "<tool_use_error>Error: No such tool available: X</tool_use_error>",
            True,
            False,
            "no tool has that name: the result is made before any check, without addToolResult",
            "没有叫这个名字的工具：结果在任何检查之前就构造好了，不经过 addToolResult",
        ),
        ErrorPath(
            "permission",
            "the refusal's own text",
            False,
            False,
            "the permission check says no: an early return after the decision, and the refusal "
            "text, addressed to the model, carries no tag; without addToolResult",
            "权限检查没有通过：决定之后提前返回；拒绝说明本身就是写给 AI 的，不加标签，"
            "也不经过 addToolResult",
        ),
        ErrorPath(
            "aborted",
            "CANCEL_MESSAGE",
            False,
            False,
            "an earlier rejection aborted the turn, so the call never starts: CANCEL_MESSAGE on "
            "the runTools path (tracer's), REJECT_MESSAGE with the streaming executor (what real "
            "sessions show); no tag, without addToolResult",
            "前面的拒绝已经中止了这一轮，这个调用根本没有开始：runTools 路径（tracer 走的）给 "
            "CANCEL_MESSAGE，流式执行器（真实会话走的）给 REJECT_MESSAGE；不加标签，"
            "不经过 addToolResult",
        ),
        ErrorPath(
            "exit_code",
            "Exit code N + the output",
            False,
            False,
            "the command ran and exited non-zero: Bash throws a ShellError, the catch in "
            "toolExecution.ts formats it (formatError) and builds the user message; no tag, "
            "without addToolResult",
            "命令执行了，退出码不为零：Bash 抛出 ShellError，toolExecution.ts 的 catch 用 "
            "formatError 格式化并构造用户消息；不加标签，不经过 addToolResult",
        ),
        ErrorPath(
            "exception",
            "formatError(err)",
            False,
            False,
            "the tool threw: the catch in toolExecution.ts formats the error and builds the user "
            "message; no tag, without addToolResult",
            "工具抛出了错误：toolExecution.ts 的 catch 格式化错误并构造用户消息；不加标签，"
            "不经过 addToolResult",
        ),
        ErrorPath(
            "command_interrupted",
            "the output + <error>Command was aborted before completion</error>",
            False,
            True,
            "the command was cut off (in tracer: it ran past its timeout): Bash returns normally "
            "with interrupted set, its mapping adds <error>Command was aborted before "
            "completion</error> and is_error, and addToolResult wraps it. 2.1.88 moves a command "
            "that times out to the background instead; tracer has no background tasks",
            "命令被中途截断（在 tracer 里是超过了时限）：Bash 照常返回，interrupted 为 true，"
            "翻译时补上 <error>Command was aborted before completion</error> 并设 is_error，"
            "再由 addToolResult 包装。2.1.88 遇到超时会把命令转到后台继续执行；tracer 没有后台任务",
        ),
        ErrorPath(
            "interrupted",
            "[Request interrupted by user for tool use]",
            False,
            False,
            "the user pressed Ctrl-C while the call ran: tracer kills it and answers it with the "
            "interruption notice itself, without addToolResult (tracer's own answer)",
            "调用执行时用户按了 Ctrl-C：tracer 结束它，直接用中断说明回答，不经过 addToolResult"
            "（这是 tracer 自己的做法）",
        ),
    )
}


def error_path(kind: str | None) -> ErrorPath | None:
    """The row for a ``tool_run``'s ``error_kind`` (``None`` for an unknown kind)."""
    return PATHS.get(kind)
