"""``tracer export --format html`` as a command: a page, a site, and two runs beside each other.

The command writes one page, or with ``--all`` a site whose index links every recording, a
Chinese index, and each fault beside its good twin; ``--beside`` writes one page of two runs whose
rows hold every step of each once, in order, with the doctor's finding at its row. Bad
combinations are one line and exit 2; exporting a page imports neither Textual nor the SDK.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from export_html_helpers import Page

from tracer.cli.main import main


def test_the_command_writes_a_page_and_a_site(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "page.html"
    assert main(["export", "01-main-walk", "--format", "html", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("<!doctype html>")
    site = tmp_path / "site"
    assert main(["export", "--all", "--format", "html", "-o", str(site)]) == 0
    index = (site / "index.html").read_text(encoding="utf-8")
    hrefs = [a["href"] for t, a in Page(index).tags if t == "a"]
    assert "01-main-walk.html" in hrefs and all((site / h).is_file() for h in hrefs)
    assert hrefs[0] == "index-zh.html"  # the language switch, first
    chinese = (site / "index-zh.html").read_text(encoding="utf-8")
    assert '<html lang="zh-Hans">' in chinese and 'href="index.html"' in chinese
    assert "三站，四步" in chinese and "three stations and four steps" in index
    # Each fault with a good twin is there beside it too, linked from its line of the index.
    from tracer.compare.twins import TWINS

    for fault in TWINS:
        pair = fault.replace("/", "-") + "-beside.html"
        assert pair in hrefs and "beside-link" in index, fault
        assert "twins/" in (site / pair).read_text(encoding="utf-8")
    assert "与正常执行对照" in chinese
    capsys.readouterr()
    for bad in (["export", "01-main-walk", "-f", "html"], ["export", "--all", "-f", "md"]):
        assert main(bad) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("tracer: "), err


def test_beside_writes_one_page_of_two_runs_and_a_fault_finds_its_twin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "beside.html"
    assert main(["export", "faults/01-result-not-returned", "--beside", "--format", "html",
                 "-o", str(out)]) == 0  # fmt: skip
    written = out.read_text("utf-8")
    assert "beside" in capsys.readouterr().err and "twins/01-status-and-diff" in written
    page = Page(out.read_text(encoding="utf-8"))
    blocks = {a.get("id"): text for a, text in page.scripts if a.get("type") == "application/json"}
    meta = json.loads(blocks["tracer-meta"])
    assert [side["name"] for side in meta["sides"]] == [
        "faults/01-result-not-returned", "twins/01-status-and-diff"
    ]  # fmt: skip
    from tracer.export.html.beside import expand_rows

    rows_a, rows_b, change = expand_rows(meta["rows"])
    assert len(rows_a) == len(change) == meta["count"] and len(meta["rows"]) < meta["count"]
    a_steps = [s for s in rows_a if s >= 0]
    b_steps = [s for s in rows_b if s >= 0]
    assert a_steps == list(range(meta["sides"][0]["count"]))  # every step once, in order
    assert b_steps == list(range(meta["sides"][1]["count"]))
    assert meta["summary"]["differences"] == sum(c != "s" for c in change) > 0
    finding = meta["findings"][0]  # the doctor's finding, pointed at its row
    assert finding["side"] == 0 and rows_a[finding["row"]] == finding["step"]
    assert {"a-chunk-0", "b-chunk-0"} <= set(blocks)
    for bad, said in (
        (["faults/06-loop-not-ending-repeat", "--beside"], "the loop is not broken"),
        (["01-main-walk", "--beside", "no-such"], "no such trace"),
        (["01-main-walk", "--beside", "01-main-walk", "--format", "md"], "--beside goes"),
    ):
        html_args = [] if "--format" in bad else ["--format", "html", "-o", str(out)]
        args = ["export", *bad, *html_args]
        assert main(args) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and said in err, err


def test_exporting_a_page_needs_neither_textual_nor_the_sdk() -> None:
    import subprocess

    code = (
        "import sys; from tracer.cli.main import main;"
        "assert main(['export', '01-main-walk', '-f', 'html', '-o', sys.argv[1]]) == 0;"
        "print(sorted(m for m in ('textual', 'anthropic') if m in sys.modules))"
    )
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [sys.executable, "-c", code, str(Path(tmp) / "p.html")],
            capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
    assert out.stdout.strip() == "[]"
