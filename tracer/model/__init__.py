"""The message model: the list the loop keeps, and the list the API is sent.

Mirrors Claude Code's ``utils/messages.ts``. It is the bottom layer both the agent (which makes
messages) and the trace (which stores requests and rebuilds them) stand on, so it imports nothing
from either. Two lists matter in chapter 12, each in its own module:

* the **internal** list (``State.messages``), in :mod:`.internal_messages`: one assistant message
  per streamed content block (all sharing the API ``message_id``), one user message per tool
  result, and attachment messages. This is what the chapter's ``[DEBUG] Loop turn: … messages: N``
  counts;
* the list **sent to the API**, in :mod:`.api_messages`, made by
  :func:`~.api_messages.normalize_messages_for_api`: same-id assistant pieces merged back into
  one message, consecutive user messages merged with their ``tool_result`` blocks first,
  attachments turned into ``<system-reminder>`` text.

Each API message remembers where its blocks came from (``parts``: ``(uuid, index)`` pairs), so a
trace can store a request by reference and :func:`~.api_messages.materialize` can rebuild it byte
for byte. :mod:`.pairing` is the rule every request obeys on its way out: each ``tool_use`` gets
exactly one ``tool_result`` (``ensureToolResultPairing``).

The records themselves (``Message``, ``ApiMessage``, and above this layer the trace's events and
the importer's records) are dataclasses made without ``dataclasses`` compiling their methods at
every start: :mod:`.record_fields` collects their fields, :mod:`.record_class` makes the class
from them, :mod:`.record_init` gives it the ``__init__`` compiled ahead of time in
:mod:`.lean_methods`.
"""
