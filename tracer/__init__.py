"""tracer: watch a tool result travel back to the model (chapter 12, 结果回到AI手中)."""

__version__ = "0.1.0"
