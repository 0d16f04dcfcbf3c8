"""A session: everything one run of the loop needs, built from a scenario or a live prompt.

The first messages are what Claude Code's ``processUserInput`` returns: the prompt, then its
attachment messages. With the scripted model, uuids come from a seeded source so that two
recordings of a scenario are identical apart from times and temporary paths.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx2

from tracer.agent.execution import ToolRunner
from tracer.agent.faults import Faults
from tracer.agent.loop import Terminal, query_loop
from tracer.agent.model import DEFAULT_TIMEOUT, ModelSeam
from tracer.agent.permissions import Permissions, terminal_asker
from tracer.agent.tools import Tool, ToolContext, tool_registry
from tracer.model.internal_messages import (
    Message,
    UuidSource,
    create_attachment_message,
    create_user_message,
)
from tracer.trace.events import Event, SessionStarted

MAX_TOKENS = 4096

#: The system prompt of a session that brings none. It lives here, with the session that sends
#: it, so that the agent layer never imports ``record`` (which imports the agent).
DEFAULT_SYSTEM = (
    "You are a coding agent working in a small repository. Use the tools to look before you "
    "answer; keep answers short."
)


@dataclass
class Session:
    prompt: str
    attachments: list[dict[str, Any]]
    tools: dict[str, Tool]
    seam: ModelSeam
    ctx: ToolContext
    permissions: Permissions
    results_dir: Any
    new_uuid: Callable[[], str]
    model: str
    max_turns: int | None = None
    faults: Faults = field(default_factory=Faults)
    title: dict[str, str] | None = None
    scenario: str | None = None
    turn: int = 0
    message_count: int = 0

    @classmethod
    def for_scenario(
        cls,
        scenario: Any,
        dirs: Any,
        *,
        transport: httpx2.BaseTransport,
        max_turns: int | None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> Session:
        tools = tool_registry(scenario.tools)
        params = _params(scenario.model, scenario.system, tools)
        return cls(
            prompt=scenario.prompt,
            attachments=scenario.attachments,
            tools=tools,
            seam=ModelSeam(params=params, transport=transport, timeout=timeout),
            ctx=ToolContext(
                workspace=dirs.workspace,
                env=dirs.env,
                readable_roots=[dirs.tool_results],
                results_dir=dirs.tool_results,
            ),
            permissions=Permissions(
                allow=list(scenario.allow),
                deny=list(scenario.deny),
                script=list(scenario.decisions),
            ),
            results_dir=dirs.tool_results,
            new_uuid=UuidSource(scenario.name),
            model=scenario.model,
            max_turns=max_turns,
            faults=scenario.faults,
            title=scenario.title,
            scenario=scenario.name,
        )

    @classmethod
    def online(
        cls,
        prompt: str,
        dirs: Any,
        *,
        model: str,
        api_key: str,
        base_url: str | None,
        max_turns: int | None,
        allow: list[str],
        deny: list[str],
        interactive: bool,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> Session:
        tools = tool_registry()
        params = _params(model, None, tools)
        return cls(
            prompt=prompt,
            attachments=[],
            tools=tools,
            seam=ModelSeam(params=params, api_key=api_key, base_url=base_url, timeout=timeout),
            ctx=ToolContext(
                workspace=dirs.workspace,
                env=dirs.env,
                readable_roots=[dirs.tool_results],
                results_dir=dirs.tool_results,
            ),
            permissions=Permissions(
                allow=allow, deny=deny, asker=terminal_asker if interactive else None
            ),
            results_dir=dirs.tool_results,
            new_uuid=UuidSource(),
            model=model,
            max_turns=max_turns,
        )

    def start_event(self) -> SessionStarted:
        return SessionStarted(
            model=self.model,
            prompt=self.prompt,
            max_turns=self.max_turns,
            tools=list(self.tools),
            request_params=self.seam.params,
            title=self.title,
            scenario=self.scenario,
        )

    def first_messages(self) -> list[Message]:
        prompt = create_user_message(self.prompt, new_uuid=self.new_uuid, origin="prompt")
        return [
            prompt,
            *(create_attachment_message(a, new_uuid=self.new_uuid) for a in self.attachments),
        ]

    def run(self, emit: Callable[[Event], Any]) -> Terminal:
        def tracking_emit(event: Event) -> Any:
            self.turn = max(self.turn, event.turn)
            if getattr(event, "kind", "") == "turn_start":
                self.message_count = event.message_count  # type: ignore[attr-defined]
            return emit(event)

        runner = ToolRunner(
            tools=self.tools,
            ctx=self.ctx,
            permissions=self.permissions,
            emit=tracking_emit,
            new_uuid=self.new_uuid,
            results_dir=self.results_dir,
            faults=self.faults,
        )
        return query_loop(
            self.first_messages(),
            seam=self.seam,
            runner=runner,
            emit=tracking_emit,
            new_uuid=self.new_uuid,
            max_turns=self.max_turns,
            force_follow_up=self.faults.force_follow_up,
            send_unpatched=self.faults.send_unpatched,
        )


def _params(model: str, system: str | None, tools: dict[str, Tool]) -> dict[str, Any]:
    return {
        "model": model,
        "max_tokens": MAX_TOKENS,
        "system": system or DEFAULT_SYSTEM,
        "tools": [t.to_api() for t in tools.values()],
    }
