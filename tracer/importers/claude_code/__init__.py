"""Claude Code's own transcripts (``~/.claude/projects/<project>/<session>.jsonl``) as traces.

:mod:`.importer` is the entry (``tracer import claude-code``). A transcript is read once
(:mod:`.census`), its records' parent links are followed (:mod:`.chain`, :mod:`.dag`,
:mod:`.order`, :mod:`.branches`) to the conversation the model saw, its records become messages
(:mod:`.transcript`, :mod:`.transcript_records`), and :mod:`.emit` writes the journey
(:mod:`.journey` and its ``journey_*`` parts) with each subagent inside its Task call
(:mod:`.subagents`, :mod:`.agent_files`). :mod:`.counts` checks that every tool call arrived;
:mod:`.folder`, :mod:`.sessions` and :mod:`.live` import a whole project, list sessions, and
follow one while it runs.
"""
