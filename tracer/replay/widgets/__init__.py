"""The replay screen's widgets, one a file. Each gets what to show from the screen (attributes
down) and reports clicks as messages (messages up); none of them reads the trace itself."""
