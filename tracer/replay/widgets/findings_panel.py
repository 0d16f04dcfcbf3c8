"""The findings panel (key ``d``): what the doctor found, and a way to jump to each.

Each row is one finding of :func:`tracer.doctor.run_doctor`: its severity and rule id, the step
and turn where to look, the doctor's one-line message and the guide's "how to check" hint in the
current language. Choosing a row (Enter, or a click) posts :class:`FindingsPanel.Selected` with
its step; the app moves the cursor, as it does for the timeline and the progress bar.

The panel holds no state of its own beyond what the app hands it in :meth:`FindingsPanel.show`.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tracer.replay.diagnose import Diagnosis, step_of
from tracer.replay.i18n import severity_mark, severity_name, tr
from tracer.replay.wrap import Wrapped

#: Colour of each severity's marker, shared with the timeline.
SEVERITY_STYLE = {"error": "bold #ff5f5f", "warning": "bold #ffaf00"}


class FindingsPanel(OptionList):
    """The doctor's findings, one option each; Enter or a click jumps to the finding's step."""

    BINDINGS = [Binding("escape", "app.findings", "close", show=False)]  # noqa: RUF012

    class Selected(Message):
        """The reader chose a finding: go to ``step`` (0-based)."""

        def __init__(self, step: int) -> None:
            self.step = step
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.steps: list[int] = []
        """The 0-based step of each option, in order (separators excluded)."""
        self._shown: tuple[Diagnosis | None, str, str] | None = None

    def show(self, diagnosis: Diagnosis | None, lang: str, state: str = "") -> None:
        """Fill the list. ``diagnosis`` None: not checked yet (``state`` says why: "checking" or
        "waiting")."""
        shown = self._shown
        if shown is not None and shown[0] is diagnosis and shown[1:] == (lang, state):
            return
        self._shown = (diagnosis, lang, state)
        count = len(diagnosis.findings) if diagnosis is not None else 0
        count_text = (f"（{count}）" if lang == "zh" else f" ({count})") if count else ""
        self.border_title = tr("findings", lang) + count_text
        self.steps = []
        if diagnosis is None:
            self.set_options(
                [
                    Option(
                        Text(tr(f"doctor_{state or 'checking'}", lang), style="dim"), disabled=True
                    )
                ]
            )
            return
        if diagnosis.problem is not None:
            self.set_options(
                [
                    Option(
                        Text(tr("doctor_failed", lang, problem=diagnosis.problem), style="dim"),
                        disabled=True,
                    )
                ]
            )
            return
        if not diagnosis.findings:
            self.set_options([Option(Text(tr("no_findings", lang), style="dim"), disabled=True)])
            return
        options: list[Option | None] = []
        for finding in diagnosis.findings:
            if options:
                options.append(None)  # a rule between findings
            # Wrapped the Chinese way: "第2次请求" never loses 次 to the next line.
            row = Wrapped(finding_text(finding, lang))
            options.append(Option(row, id=f"finding-{len(self.steps)}"))
            self.steps.append(step_of(finding))
        self.set_options(options)
        self.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option_id or ""
        if option_id.startswith("finding-"):
            self.post_message(self.Selected(self.steps[int(option_id.removeprefix("finding-"))]))


def finding_text(finding: object, lang: str) -> Text:
    """One finding as a few lines: severity and rule; step and turn; message; how to check."""
    severity = str(getattr(finding, "severity", "error"))
    style = SEVERITY_STYLE.get(severity, "bold")
    text = Text()
    text.append(f"{severity_mark(severity)} {severity_name(severity, lang)}", style=style)
    text.append(f"  {getattr(finding, 'rule', '?')}", style="bold")
    text.append(
        "  "
        + tr(
            "finding_where",
            lang,
            step=getattr(finding, "step", 0),
            turn=getattr(finding, "turn", 0),
        ),
        style="dim",
    )
    zh_message = getattr(finding, "message_zh", "") if lang == "zh" else ""
    text.append("\n" + str(zh_message or getattr(finding, "message", "")))
    hint = getattr(finding, "hint", None) or {}
    words = hint.get(lang) or hint.get("en") or hint.get("zh")
    if words:
        text.append("\n" + tr("check", lang), style="bold")
        text.append(str(words), style="italic")
    return text
