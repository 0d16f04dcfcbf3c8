from tracer.cli.console import run

raise SystemExit(run())
