"""The trace: typed event records, the append-only writer, the lazy reader, the schema."""
