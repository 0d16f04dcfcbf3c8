from tracer.console import run

raise SystemExit(run())
