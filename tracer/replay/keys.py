"""Every key of the replay app, in one place (the help screen, ``i18n.HELP``, describes them).

Keys are the same in both languages; Chinese punctuation typed with an input method (、。，【】
＋？) works as its ASCII twin does. The step keys (← → [ ] 1–4, < >) are the replay screen's
(:class:`tracer.replay.screen.ReplayScreen`), so they work whichever panel has the focus; ↑ ↓
PgUp PgDn Home End belong to the focused panel (each widget binds its own), and reach these
screen-level ones only when no panel takes them. A dialog is modal: under it none of them acts.
Vim-style alternatives sit beside the arrows (h l, j k in the panels).
"""

from __future__ import annotations

from textual.binding import Binding

KEYS = [
    Binding("right,l,space", "step(1)", "next", show=False),
    Binding("left,h", "step(-1)", "previous", show=False),
    Binding("home,less_than_sign", "first", "first", show=False),
    Binding("end,greater_than_sign", "last", "last", show=False),
    Binding("right_square_bracket,right_black_lenticular_bracket", "next_turn", "next turn"),
    Binding("n", "next", "next match / next turn", show=False),
    Binding("N", "match(-1)", "previous match", show=False),
    Binding(
        "left_square_bracket,p,left_black_lenticular_bracket", "previous_turn", "previous turn"
    ),
    Binding("1", "station(1)", "mapping", show=False),
    Binding("2", "station(2)", "wrapping", show=False),
    Binding("3", "station(3)", "appending", show=False),
    Binding("4", "station(4)", "resending", show=False),
    Binding("g", "goto", "go to"),
    Binding("slash,ideographic_comma", "search", "search"),
    Binding("full_stop,ideographic_full_stop,f3", "match(1)", "next match", show=False),
    Binding("comma,fullwidth_comma,shift+f3", "match(-1)", "previous match", show=False),
    Binding("a", "autoplay", "autoplay"),
    Binding("plus,equals_sign,fullwidth_plus_sign", "speed(1)", "faster", show=False),
    Binding("minus,fullwidth_hyphen_minus", "speed(-1)", "slower", show=False),
    Binding("f", "filter", "filter"),
    Binding("t", "language", "language"),
    Binding("c", "chapter", "chapter"),
    Binding("T", "timeline", "timeline"),
    Binding("D", "debug", "debug console"),
    Binding("d", "findings", "findings"),
    Binding("z", "zoom", "zoom"),
    Binding("o", "unfold", "unfold"),
    # Enter steps into a subagent's loop on its Task call, and unfolds everywhere else.
    Binding("enter", "enter", "unfold / into subagent", show=False),
    Binding("i", "step_into", "into subagent", show=False),
    Binding("u", "step_out", "out of subagent", show=False),
    # Escape puts out a search first (as in less), then leaves a subagent's loop.
    Binding("escape", "escape", "clear search / out of subagent", show=False),
    Binding("r", "raw", "raw JSON"),
    Binding("b", "block", "raw output ⇄ block"),
    Binding("y", "copy", "copy"),
    Binding("O", "open_picker", "open"),
    Binding("s", "contents", "contents"),
    Binding("w", "tour('next')", "next stop", show=False),
    Binding("W,B", "tour('back')", "previous stop", show=False),
    Binding("v", "tour('review')", "review answers", show=False),
    Binding("question_mark,fullwidth_question_mark,f1", "help", "help"),
    Binding("q", "app.quit", "quit"),  # the app's action: these keys are the screen's
    Binding("up", "scroll_stage(-1)", "scroll up", show=False),
    Binding("down", "scroll_stage(1)", "scroll down", show=False),
    Binding("pageup", "scroll_stage(-10)", "page up", show=False),
    Binding("pagedown", "scroll_stage(10)", "page down", show=False),
]
