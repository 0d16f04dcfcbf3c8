"""tracer.compare: two runs paired step by step (pure alignment, keys read from traces, twins)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracer.compare.align import Key, align, summarize
from tracer.compare.keys import step_keys
from tracer.compare.twins import NO_TWIN, TWINS, no_twin, twin_of
from tracer.files.paths import FAULTS_DIR, MAIN_RECORDING, RECORDINGS_DIR, resolve_trace
from tracer.trace.reader import TraceReader
from tracer.view.steps import StepIndex


def keys(*steps: str) -> list[Key]:
    """``"1 mapping x"`` → Key(1, "mapping", "x")."""
    out = []
    for text in steps:
        turn, stage, digest = text.split()
        out.append(Key(int(turn), stage, digest))
    return out


def test_equal_runs_pair_every_step() -> None:
    run = keys("0 session s", "1 turn_start t", "1 mapping m", "1 wrapping w")
    rows = align(run, run)
    assert [(r.a, r.b, r.change) for r in rows] == [(k, k, "same") for k in range(4)]
    assert summarize(rows).identical


def test_a_step_one_run_lacks_is_a_row_of_its_own_and_the_rest_stay_paired() -> None:
    # A dropped its wrapping (the result never pushed); B is the good run.
    a = keys("1 turn_start t", "1 tool_run r", "1 mapping m", "1 appending p", "2 resending x")
    b = keys("1 turn_start t", "1 tool_run r", "1 mapping m", "1 wrapping w", "1 appending p2",
             "2 resending y")  # fmt: skip
    rows = align(a, b)
    assert [(r.a, r.b, r.stage, r.change) for r in rows] == [
        (0, 0, "turn_start", "same"),
        (1, 1, "tool_run", "same"),
        (2, 2, "mapping", "same"),
        (None, 3, "wrapping", "only_b"),
        (3, 4, "appending", "changed"),
        (4, 5, "resending", "changed"),
    ]
    summary = summarize(rows)
    assert (summary.same, summary.changed, summary.only_a, summary.only_b) == (3, 2, 0, 1)
    assert summary.differences == [3, 4, 5]


def test_turns_pair_by_number_and_a_turn_one_run_lacks_is_one_sided() -> None:
    a = keys("0 session s", "1 resending r", "2 resending q", "2 terminal e")
    b = keys("0 session s", "1 resending r", "2 resending q", "3 resending z", "3 terminal e")
    rows = align(a, b)
    assert [(r.turn, r.a, r.b, r.change) for r in rows] == [
        (0, 0, 0, "same"),
        (1, 1, 1, "same"),
        (2, 2, 2, "same"),
        (2, 3, None, "only_a"),
        (3, None, 3, "only_b"),
        (3, None, 4, "only_b"),
    ]


def test_every_step_of_each_side_is_in_exactly_one_row() -> None:
    a = keys(*(f"{t} {s} {t}{s}" for t in range(1, 30) for s in ("a", "b", "c")))
    b = keys(*(f"{t} {s} {t}{s}" for t in range(3, 40) for s in ("b", "c", "d")))
    rows = align(a, b)
    assert sorted(r.a for r in rows if r.a is not None) == list(range(len(a)))
    assert sorted(r.b for r in rows if r.b is not None) == list(range(len(b)))


def _keys_of(path: Path) -> list[Key]:
    reader = TraceReader(path)
    try:
        return step_keys(StepIndex(reader))
    finally:
        reader.close()


def test_a_changed_tool_output_changes_only_the_steps_that_carry_it(tmp_path: Path) -> None:
    changed = tmp_path / "changed.trace.jsonl"
    text = MAIN_RECORDING.read_text(encoding="utf-8")
    changed.write_text(text.replace("On branch cmbt", "On branch trunk"), encoding="utf-8")
    rows = align(_keys_of(MAIN_RECORDING), _keys_of(changed))
    assert all(r.a == r.b for r in rows)  # the same steps, pairwise
    differ = {r.stage for r in rows if r.change == "changed"}
    assert "mapping" in differ and "tool_run" in differ
    assert rows[0].change == "same" and rows[1].change == "same"  # before the output: equal


def test_a_rerecorded_run_equals_itself_but_for_what_varies(tmp_path: Path) -> None:
    """Times, sequence numbers, uuids and the run's temporary folder are left out."""
    again = tmp_path / "again.trace.jsonl"
    lines = MAIN_RECORDING.read_text(encoding="utf-8").splitlines()
    workspace = '"workspace":"'
    old = lines[0].split(workspace)[1].split('"')[0]
    text = "\n".join(lines).replace(old, "/tmp/tracer-other/workspace")
    text = text.replace('"t":0.0', '"t":9.5').replace('"uuid":"', '"uuid":"x')
    again.write_text(text + "\n", encoding="utf-8")
    assert summarize(align(_keys_of(MAIN_RECORDING), _keys_of(again))).identical


def test_bundled_faults_name_their_good_twin() -> None:
    for fault, twin in TWINS.items():
        found = twin_of(resolve_trace(fault))
        assert found is not None and found == RECORDINGS_DIR / f"{twin}.trace.jsonl", fault
    assert twin_of(MAIN_RECORDING) is None  # a good run has none
    assert twin_of(resolve_trace("faults/06-loop-not-ending-repeat")) is None  # explained


def test_every_bundled_fault_has_a_twin_or_says_why_not() -> None:
    faults = {f"faults/{p.stem}" for p in FAULTS_DIR.glob("*.yaml")}
    assert faults == set(TWINS) | set(NO_TWIN) and not set(TWINS) & set(NO_TWIN)
    line = no_twin("faults/06-loop-not-ending-repeat")
    assert "\n" not in line and NO_TWIN["faults/06-loop-not-ending-repeat"] in line
    assert line.endswith("name one: --beside B")


#: Each fault's broken step, the stage its notes name: (turn, stage, how the twin's row differs).
BROKEN = {
    "faults/01-result-not-returned": (1, "wrapping", "only_b"),  # the push that never happened
    "faults/02-tool-use-id-mismatch": (1, "mapping", "changed"),  # the id written wrong
    "faults/03-malformed-result": (1, "mapping", "changed"),  # the block without tool_use_id
    "faults/04-malformed-result-error-flag": (1, "mapping", "changed"),  # is_error removed
    "faults/05-loop-not-ending": (2, "follow_up", "changed"),  # needsFollowUp kept true
    "faults/07-max-turns": (1, "max_turns_check", "changed"),  # max_turns 2, not 5 (see below)
    "faults/08-api-invariants": (1, "wrapping", "changed"),  # the feedback ahead of the result
}


def test_every_twin_is_checked_here() -> None:
    assert set(BROKEN) == set(TWINS)


@pytest.mark.parametrize("fault", sorted(BROKEN))
def test_a_fault_and_its_twin_differ_only_from_the_broken_step_on(fault: str) -> None:
    """A fault and its twin are one session seeded by two names, so their message uuids differ;
    a request names its messages by uuid, and each is counted by first appearance, so the steps
    before the broken one are equal and the broken one is the first difference."""
    path = resolve_trace(fault)
    twin = twin_of(path)
    assert twin is not None
    rows = align(_keys_of(path), _keys_of(twin))
    assert (rows[0].turn, rows[0].stage, rows[0].change) == (0, "session", "changed")  # names
    first = next(n for n, r in enumerate(rows) if n and r.change != "same")
    assert (rows[first].turn, rows[first].stage, rows[first].change) == BROKEN[fault]
    assert first > 4  # the turn's request, response and tool run agree before it
    assert all(r.a == r.b for r in rows[1:first])  # paired one to one, step n with step n


@pytest.mark.parametrize("twin", sorted(TWINS.values()))
def test_a_twin_is_a_good_run(twin: str) -> None:
    """The doctor finds nothing in a twin: it is the run the fault breaks, not another fault."""
    from tracer.view.diagnose import diagnose

    assert list(diagnose(RECORDINGS_DIR / f"{twin}.trace.jsonl").findings) == []


def test_fault_07_and_its_twin_part_at_turn_2s_check() -> None:
    """Fault 07's bug is a setting (max_turns 2): every check shows it, and the check of turn 1
    passes in both runs; the runs part at turn 2's, where only the fault's loop stops."""
    rows = align(_keys_of(resolve_trace("faults/07-max-turns")),
                 _keys_of(RECORDINGS_DIR / "twins" / "07-enough-turns.trace.jsonl"))  # fmt: skip
    differ = [(r.turn, r.stage, r.change) for r in rows if r.change != "same"]
    assert differ[:4] == [
        (0, "session", "changed"),
        (1, "max_turns_check", "changed"),
        (2, "max_turns_check", "changed"),
        (2, "terminal", "only_a"),  # the fault's loop ends here; the twin's goes on
    ]
    assert all(change == "only_b" for _turn, _stage, change in differ[4:])


def test_the_alignment_imports_no_textual() -> None:
    import subprocess
    import sys

    code = (
        "import sys, tracer.compare.align, tracer.compare.keys, tracer.compare.twins;"
        "print('textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_page_stores_the_rows_as_runs_and_gets_them_back() -> None:
    from tracer.export.html.beside import expand_rows, row_runs

    a = keys(*(f"{t} {s} {t}{s}" for t in range(1, 300) for s in ("a", "b", "c")))
    b = keys(*(f"{t} {s} {t}{s}" for t in range(3, 400) for s in ("b", "c", "d")))
    rows = align(a, b)
    runs = row_runs(rows)
    assert len(runs) < len(rows)  # (a run per turn here: each has its one-sided rows)
    code = {"same": "s", "changed": "c", "only_a": "a", "only_b": "b"}
    assert expand_rows(runs) == (
        [-1 if r.a is None else r.a for r in rows],
        [-1 if r.b is None else r.b for r in rows],
        "".join(code[r.change] for r in rows),
    )


def test_runs_that_agree_are_a_few_runs_however_long() -> None:
    from tracer.export.html.beside import row_runs

    run = keys(*(f"{t} {s} {t}{s}" for t in range(1, 1000) for s in ("a", "b", "c")))
    assert row_runs(align(run, run)) == [[0, 0, "s", len(run)]]
