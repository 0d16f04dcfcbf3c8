"""The agent loop, built like Claude Code's query.ts: tools, permissions, the SDK seam."""
