"""``tracer record``: a session run in a throwaway workspace, its every stage written to a trace.

The edge where the agent meets the world. :mod:`.workspace` makes the workspace (and, as root,
the unprivileged user and the sandbox around each command); :mod:`.run` wires a scenario or a
real model, the loop and the trace file together; :mod:`.recorder` is the loop's callback, which
redacts secrets and writes each event as it happens.
"""
