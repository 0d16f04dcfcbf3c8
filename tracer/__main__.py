from tracer.cli.console import script

script()
