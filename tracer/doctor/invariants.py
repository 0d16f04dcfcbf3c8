"""The API's own rules for a conversation, checked on every request as it was sent.

The API keeps no state, so each request must stand on its own: it starts with a user message,
every ``tool_use`` is answered in the very next user message, that message starts with its
``tool_result`` blocks (text after them), and no ``tool_result`` answers a call that is not
there. Two messages with the same role in a row are not reported: the SDK's docstring says the
API combines consecutive same-role turns, although 2.1.88's own comments say it requires
alternation and rejects an assistant message after another (``messages.ts``); the guide gives
both.
:mod:`tracer.agent.api_rules` knows these rules and the API's wording for each; this rule runs it
on every request rebuilt from the trace.

A broken pairing that a more specific rule already explained (a dropped result, a wrong id, a
malformed block) is not reported twice: the reader learns more from the specific finding.
"""

from __future__ import annotations

from tracer.agent.api_problem import Problem
from tracer.agent.api_rules import find_problems
from tracer.doctor.facts import TraceFacts
from tracer.doctor.finding import Finding
from tracer.doctor.sent_requests import SentRequest

#: Problems that belong to the malformed-result rule (none: its story is the block itself).
_MALFORMED_CODES: set[str] = set()


def _is_result_field(request: SentRequest, problem: Problem) -> bool:
    """A field problem inside a result block: the malformed-result rule's story."""
    if problem.code != "schema" or problem.message_index is None or problem.block_index is None:
        return False
    content = request.wire[problem.message_index].get("content")
    if not isinstance(content, list) or problem.block_index >= len(content):
        return False
    block = content[problem.block_index]
    return isinstance(block, dict) and block.get("type") in (None, "tool_result")


def check_api_invariants(facts: TraceFacts) -> list[Finding]:
    findings: list[Finding] = []
    seen: set[str] = set()
    for request in facts.requests:
        for problem in find_problems(request.wire, request.start, stop_at_schema=False):
            if problem.code in _MALFORMED_CODES or _is_result_field(request, problem):
                continue
            if set(problem.ids) & facts.explained:
                continue
            if problem.code == "first_not_user" and "missing_prompt" in facts.import_topics:
                continue  # the import said so: the source file lacks the prompt, not the loop
            if problem.text in seen:
                continue
            seen.add(problem.text)
            verdict = (
                f"the API refused request {request.number}"
                if request.refused
                else f"request {request.number} breaks the API's rules"
            )
            verdict_zh = (
                f"API 拒绝了第{request.number}次请求"
                if request.refused
                else f"第{request.number}次请求违反了 API 的规则"
            )
            # The API's own error text stays in English: it is what the API really says.
            findings.append(
                facts.finding(
                    "api-invariants",
                    request.index,
                    f"{verdict}: {problem.text}",
                    f"{verdict_zh}：{problem.text}",
                )
            )
    return findings
