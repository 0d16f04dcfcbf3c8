"""A fuzzer of our own: damaged copies of real inputs, fed to every command, in-process.

Each *case* is one damaged file: a bundled recording, scenario, Claude Code transcript or API log,
mutated the way disks, editors, crashes and attackers damage files (a cut, flipped bytes, a line
lost, doubled or moved, a field of the wrong type, nesting 10,000 deep, a 3 MB string, invalid
UTF-8, a lone surrogate, a NUL, a message pointing at itself), a transcript reshaped as another
Claude Code version might write it (:mod:`fuzz_shapes`), or a special file (a FIFO,
``/dev/zero``, ``/dev/urandom``, a directory). Every command that reads that kind of file runs on
it through :func:`tracer.cli.main`, with stdout and stderr captured as strict UTF-8 (as a real
terminal would take them) and an alarm as a hang guard. The properties:

* no exception escapes ``main`` (a traceback), and nothing runs past the time limit (a hang);
* bad input is one line on stderr (``tracer: …``), exit 2;
* a trace ``validate`` accepts opens in every other command (exit 0 or 1, never 2);
* an import that fails leaves no output file behind, and the trace an import wrote goes
  through every trace command with these same properties.

Mutations are drawn from a seeded :class:`random.Random`, so a case is reproducible from its seed
and name. ``python tests/fuzz/fuzz_harness.py --cases 300 --seed N`` is the long run (``--only
shape`` draws only the named mutations); ``tests/fuzz/test_fuzz.py`` runs a small fixed subset
with every test run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fuzz_shapes import reshape

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "fixtures"

# -- sources -------------------------------------------------------------------------------------

#: Our own small transcripts (``tests/data/claude-code``), one record shape each: there in a
#: fresh clone, and quick to import.
OWN_TRANSCRIPTS = sorted(
    p
    for p in (ROOT / "tests" / "data" / "claude-code").glob("*.jsonl")
    if p.stat().st_size and not p.name.startswith("agent-")
)


def sources() -> dict[str, list[Path]]:
    """The real files each kind of case starts from (fixtures only when they are there)."""
    found = {
        "trace": sorted((ROOT / "recordings").rglob("*.trace.jsonl")),
        "scenario": sorted((ROOT / "chapters" / "ch12").glob("*/*.yaml")),
        "transcript": sorted((SHARED / "claude-code-transcripts").glob("*.jsonl")),
        "api_log": sorted((SHARED / "api-logs").glob("*.jsonl")),
    }
    found["scenario"] = [p for p in found["scenario"] if p.parent.name in ("scenarios", "faults")]
    # The biggest fixtures cost seconds per import; the small ones carry the same shapes.
    found["transcript"] = [p for p in found["transcript"] if p.stat().st_size < 300_000]
    found["transcript"] += OWN_TRANSCRIPTS
    return found


#: The commands run on each kind of case; ``{out}`` is a fresh output path per run.
COMMANDS: dict[str, list[list[str]]] = {
    "trace": [
        ["show", "{in}"],
        ["hooks", "{in}"],
        ["validate", "{in}"],
        ["doctor", "{in}"],
        ["export", "{in}", "--format", "md"],
        ["export", "{in}", "--format", "mermaid"],
        ["export", "{in}", "--format", "otlp-json"],
        ["replay", "{in}", "--screenshot", "{out}", "--size", "80x24"],
    ],
    "scenario": [["record", "--scenario", "{in}", "-o", "{out}"]],
    "transcript": [["import", "claude-code", "{in}", "-o", "{out}"]],
    "api_log": [["import", "api-log", "{in}", "-o", "{out}"]],
}

# -- mutations -----------------------------------------------------------------------------------


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _pick_json_line(rng: random.Random, data: bytes) -> tuple[list[bytes], int, Any] | None:
    lines = _lines(data)
    candidates = [i for i, line in enumerate(lines) if line.startswith(b"{")]
    rng.shuffle(candidates)
    for i in candidates[:5]:
        try:
            return lines, i, json.loads(lines[i])
        except ValueError:
            continue
    return None


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a value inside a parsed JSON object (depth-limited, for big lines)."""
    if len(prefix) > 6:
        return
    if isinstance(value, dict):
        for key, sub in value.items():
            yield (*prefix, key)
            yield from _paths(sub, (*prefix, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value[:20]):
            yield (*prefix, i)
            yield from _paths(sub, (*prefix, i))


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value


_ODD_VALUES: list[Any] = [
    1.5,
    -1,
    0,
    2**70,
    "",
    "x",
    [],
    [1, [2]],
    {},
    {"type": 3},
    None,
    True,
    [None],
    ["a", "b"],
]


def _retype(rng: random.Random, data: bytes, value: Any | None = None, raw: bool = False) -> bytes:
    picked = _pick_json_line(rng, data)
    if picked is None:
        return data
    lines, i, obj = picked
    paths = list(_paths(obj))
    if not paths:
        return data
    path = rng.choice(paths)
    new = value if value is not None else rng.choice(_ODD_VALUES)
    _set(obj, path, new)
    text = json.dumps(obj, ensure_ascii=raw is False)
    lines[i] = text.encode("utf-8", "surrogatepass")
    return b"\n".join(lines)


def _retype_header(rng: random.Random, data: bytes) -> bytes:
    """Line 1 only: the header's fields are read by every view, never as an event."""
    first, _, rest = data.partition(b"\n")
    return _retype(rng, first) + b"\n" + rest


def _nest(rng: random.Random, data: bytes) -> bytes:
    picked = _pick_json_line(rng, data)
    if picked is None:
        return data
    lines, i, obj = picked
    depth = rng.choice([70, 500, 10_000])
    # A key of an object: a list index is no key to find in the text (it once matched "3: "
    # inside a string and stopped the whole run).
    paths = [p for p in _paths(obj) if isinstance(p[-1], str)] or [("x",)]
    key = json.dumps(rng.choice(paths)[-1])
    deep = "[" * depth + "]" * depth
    text = json.dumps(obj)
    # Splice textually: json.dumps itself would recurse on the deep value.
    where = text.find(key + ": ")
    if where < 0:
        return data
    old = _get_first(obj, json.loads(key))
    if old is _MISSING:
        return data
    start = where + len(key) + 2
    end = start + len(json.dumps(old))
    lines[i] = (text[:start] + deep + text[end:]).encode()
    return b"\n".join(lines)


def _get_first(obj: Any, key: Any) -> Any:
    if isinstance(obj, dict):
        if key in obj:
            return obj[key]
        for sub in obj.values():
            found = _get_first(sub, key)
            if found is not _MISSING:
                return found
    elif isinstance(obj, list):
        for sub in obj:
            found = _get_first(sub, key)
            if found is not _MISSING:
                return found
    return _MISSING


_MISSING: Any = object()


def _self_pointer(rng: random.Random, data: bytes) -> bytes:
    """A message whose block pointer points at itself (or at another message)."""
    lines = _lines(data)
    found = [i for i, line in enumerate(lines) if b'"block_seq"' in line]
    if not found:
        return data
    i = rng.choice(found)
    obj = json.loads(lines[i])
    obj["block_seq"] = obj["seq"] if rng.random() < 0.7 else max(1, obj["seq"] - 1)
    lines[i] = json.dumps(obj, ensure_ascii=False).encode()
    return b"\n".join(lines)


def _yaml_mutation(rng: random.Random, data: bytes) -> bytes:
    """Scenario-specific damage: the shapes YAML allows that JSON does not."""
    choice = rng.randrange(5)
    if choice == 0:  # a billion laughs in the title
        lol = ['lol0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
        lol += [f"lol{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 9)]
        text = data.decode().replace("\ntitle:", "\n" + "\n".join(lol) + "\ntitle: *a8\nx_title:")
        return text.encode()
    if choice == 1:  # a mapping where a tool id belongs
        return data.replace(b"name: Bash", b"id: {a: 1}\n        name: Bash", 1)
    if choice == 2:
        return data.replace(b"prompt:", b'prompt: "\\ud800"\nx_prompt:', 1)
    if choice == 3:
        return data.replace(b"title:", b"title: [[[[[[[[[[" * 8 + b"\nx:", 1)
    return data.replace(b"\n", b"\n" + b"- " * rng.randrange(1, 60), 1)


def _log_mutation(rng: random.Random, data: bytes) -> bytes:
    """API-log damage inside the strings JSON cannot see into: the raw SSE, the call mix."""
    lines = _lines(data)
    found = [i for i, line in enumerate(lines) if b"body_raw" in line]
    if not found:
        return data
    i = rng.choice(found)
    obj = json.loads(lines[i])
    response = obj.get("response") or {}
    raw = response.get("body_raw")
    choice = rng.randrange(5)
    if choice == 4:  # every call a probe: no main loop at all
        for n, line in enumerate(lines):
            if line.strip():
                rec = json.loads(line)
                rec["request"]["body"]["max_tokens"] = 1
                lines[n] = json.dumps(rec).encode()
        return b"\n".join(lines)
    if not isinstance(raw, str) or not raw:
        return data
    if choice == 0:
        raw = raw[: rng.randrange(len(raw))]
    elif choice == 1:
        raw = raw.replace('"partial_json":"', '"partial_json":"{{{', 1)
    elif choice == 2:
        raw = raw.replace('"index":', '"index":"x","i":', rng.randrange(1, 4))
    else:
        raw = "<html><body>502 Bad Gateway</body></html>"
    response["body_raw"] = raw
    lines[i] = json.dumps(obj).encode()
    return b"\n".join(lines)


#: A wrong-typed value for a field holding a value of each type (the field's own type left out).
_WRONG: dict[type, list[Any]] = {
    str: [7, None, ["x"], {"text": "x"}, True],
    int: ["7", None, 1.5, [], True],
    float: ["7", None, []],
    bool: ["true", 1, None],
    list: ["x", 5, {}, None, [7], [{"type": 3}]],
    dict: ["x", 5, [], None],
    type(None): ["x", 5, [], {}],
}


def block_damages(rec: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every damage of one record, one at a time: each field of the record, of its message and
    of each content block (tool results' inner blocks too) left out, or given a value of a wrong
    type; and each block's ``type`` made one no version of the API has. Named by the field."""
    out: list[tuple[str, dict[str, Any]]] = []

    def places(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
        if isinstance(value, dict):
            for key, sub in value.items():
                yield (*path, key)
                if (
                    key in ("message", "content")
                    or isinstance(key, int)
                    or path[-1:] == ("content",)
                ):
                    yield from places(sub, (*path, key))
        elif isinstance(value, list):
            for i, sub in enumerate(value[:8]):
                yield from places(sub, (*path, i))

    for path in places(rec, ()):
        parent = rec
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        name = ".".join(str(p) for p in path)
        if isinstance(parent, dict):
            damaged = json.loads(json.dumps(rec))
            holder = damaged
            for key in path[:-1]:
                holder = holder[key]
            del holder[last]
            out.append((f"missing {name}", damaged))
        for wrong in _WRONG.get(type(parent[last]), []):
            damaged = json.loads(json.dumps(rec))
            _set(damaged, path, wrong)
            out.append((f"{name}={json.dumps(wrong)}", damaged))
        if last == "type" and isinstance(parent, dict) and len(path) > 1:
            damaged = json.loads(json.dumps(rec))
            _set(damaged, path, "brand_new_block")
            out.append((f"{name}=unknown", damaged))
    return out


def _damage_block(rng: random.Random, data: bytes) -> bytes:
    """One field of one message record damaged (see :func:`block_damages`)."""
    lines = _lines(data)
    found = [i for i, line in enumerate(lines) if b'"message"' in line and b'"content"' in line]
    if not found:
        return data
    i = rng.choice(found)
    try:
        rec = json.loads(lines[i])
    except ValueError:
        return data
    damages = block_damages(rec) if isinstance(rec, dict) else []
    if not damages:
        return data
    lines[i] = json.dumps(rng.choice(damages)[1]).encode()
    return b"\n".join(lines)


def mutate(
    rng: random.Random, data: bytes, kind: str, only: frozenset[str] = frozenset()
) -> tuple[str, bytes]:
    """One damaged copy of ``data`` and the name of the damage (drawn from ``only``, when
    given and the kind has any of them)."""
    ops: list[tuple[str, Callable[[], bytes]]] = [
        ("truncate", lambda: data[: rng.randrange(len(data) + 1)]),
        ("flip", lambda: _flip(rng, data)),
        ("delete-line", lambda: _line_op(rng, data, "delete")),
        ("duplicate-line", lambda: _line_op(rng, data, "duplicate")),
        ("swap-lines", lambda: _line_op(rng, data, "swap")),
        ("retype", lambda: _retype(rng, data)),
        ("nest", lambda: _nest(rng, data)),
        ("huge-string", lambda: _retype(rng, data, "x" * 3_000_000)),
        (
            "invalid-utf8",
            lambda: _insert(rng, data, rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80"])),
        ),
        ("surrogate", lambda: _retype(rng, data, "a\ud800b", raw=True)),
        ("surrogate-escape", lambda: _retype(rng, data, "a\udc00b")),
        ("nul", lambda: _insert(rng, data, b"\0")),
        ("cut-terminal", lambda: b"\n".join(ln for ln in _lines(data) if b'"terminal"' not in ln)),
        # A file saved on Windows, one with a byte-order mark, one written out twice.
        ("crlf", lambda: data.replace(b"\n", b"\r\n")),
        ("bom", lambda: b"\xef\xbb\xbf" + data),
        ("twice", lambda: data + data),
    ]
    if kind == "trace":
        ops.append(("self-pointer", lambda: _self_pointer(rng, data)))
        ops.append(("retype-header", lambda: _retype_header(rng, data)))
    if kind == "api_log":
        ops += [("sse", lambda: _log_mutation(rng, data))] * 4
    if kind == "transcript":
        ops += [("block", lambda: _damage_block(rng, data))] * 4
        ops += [("shape", lambda: b"")] * 4  # reshaped below, to name the shape too
    if kind == "scenario":
        ops = [op for op in ops if op[0] not in ("retype", "nest", "huge-string", "cut-terminal")]
        ops.append(("yaml", lambda: _yaml_mutation(rng, data)))
    ops = [op for op in ops if op[0] in only] or ops
    name, op = rng.choice(ops)
    if name == "shape":  # valid JSON of another version's shape (see fuzz_shapes)
        shape, shaped = reshape(rng, data)
        return f"shape:{shape}", shaped
    return name, op()


def _flip(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randrange(1, 6)):
        if out:
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def _insert(rng: random.Random, data: bytes, what: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + what + data[at:]


def _line_op(rng: random.Random, data: bytes, op: str) -> bytes:
    lines = _lines(data)
    if len(lines) < 3:
        return data
    i, j = rng.randrange(1, len(lines)), rng.randrange(1, len(lines))
    if op == "delete":
        del lines[i]
    elif op == "duplicate":
        lines.insert(i, lines[i])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


SPECIAL = ("fifo", "/dev/zero", "/dev/urandom", "directory", "empty", "symlink-loop")


def special_file(name: str, workdir: Path) -> Path:
    if name.startswith("/dev/"):
        return Path(name)
    path = workdir / f"special-{name}"
    if path.exists() or path.is_symlink():
        return path
    if name == "fifo":
        os.mkfifo(path)
    elif name == "directory":
        path.mkdir()
    elif name == "empty":
        path.write_bytes(b"")
    else:
        path.symlink_to(path)
    return path


# -- running -------------------------------------------------------------------------------------


class Hang(BaseException):
    """Raised by the alarm; a BaseException so that no ``except Exception`` swallows it."""


@dataclass
class Outcome:
    argv: list[str]
    code: int | None
    stderr: str
    crash: str | None = None
    """``Type at file:line`` of an exception that escaped, or ``hang``."""
    seconds: float = 0.0


def run(argv: list[str], timeout: float) -> Outcome:
    """``tracer.cli.main(argv)`` in this process, captured, under an alarm."""
    from tracer.cli.main import main

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)

    def alarm(*_: object) -> None:
        raise Hang

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    start = time.monotonic()
    code: int | None = None
    crash = None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except Hang:
        crash = "hang"
    except SystemExit as exc:  # argparse
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException as exc:
        frames = traceback.extract_tb(exc.__traceback__)
        last = next((f for f in reversed(frames) if "/tracer/" in f.filename), frames[-1])
        where = f"{Path(last.filename).name}:{last.lineno}"
        crash = f"{type(exc).__name__} at {where}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    err.seek(0)
    stderr = err.buffer.getvalue().decode("utf-8", "replace")
    return Outcome(argv, code, stderr, crash, time.monotonic() - start)


@dataclass
class Report:
    runs: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    signatures: Counter[str] = field(default_factory=Counter)

    def fail(self, case: str, outcome: Outcome, why: str, path: Path | None = None) -> None:
        self.failures.append(f"{case}: {' '.join(outcome.argv[:2])}: {why}")
        # Grouped without the case's own file name, so one cause counts once.
        self.signatures[why.replace(str(path), "<case>") if path else why] += 1


def check_case(
    case: str,
    kind: str,
    path: Path,
    workdir: Path,
    report: Report,
    timeout: float,
    skip: set[str],
    chain: bool = True,
) -> None:
    """Run every command of ``kind`` on ``path`` and check the properties; with ``chain``, the
    trace an import wrote goes through the trace commands too."""
    validated = False
    for template in COMMANDS[kind]:
        label = template[0] if template[0] != "export" else f"export-{template[-1]}"
        if template[0] == "import":
            label = f"import-{template[1]}"
        if label in skip:
            continue
        out = Path(tempfile.mkdtemp(dir=workdir)) / "out"
        argv = [a.replace("{in}", str(path)).replace("{out}", str(out)) for a in template]
        outcome = run(argv, timeout)
        report.runs[label] += 1
        if outcome.crash:
            report.fail(case, outcome, outcome.crash, path)
            continue
        lines = [ln for ln in outcome.stderr.splitlines() if ln.startswith("tracer: ")]
        if outcome.code == 2 and len(lines) != 1:
            report.fail(case, outcome, f"exit 2 without one 'tracer:' line ({len(lines)})", path)
        if outcome.code not in (0, 1, 2):
            report.fail(case, outcome, f"exit {outcome.code}")
        if label == "validate" and outcome.code == 0:
            validated = True
        elif validated and outcome.code == 2:
            report.fail(case, outcome, f"validate passed but {label} refused: {lines[:1]}", path)
        if template[0] == "import" and outcome.code != 0 and out.exists():
            report.fail(case, outcome, "a failed import left its output behind")
        if template[0] == "import" and outcome.code == 1:
            # The import's own read check found the trace it wrote one the readers refuse.
            report.fail(case, outcome, f"the import wrote a trace validate refuses: {lines[:1]}")
        if template[0] == "import" and outcome.code == 0 and chain and out.is_file():
            # What an import wrote is a trace like any other: every trace command must read it
            # (a transcript's odd usage once imported fine and crashed two exports), and an
            # import that says it is done wrote one that validates.
            imported(case, out, workdir, report, timeout, skip)


def imported(
    case: str, out: Path, workdir: Path, report: Report, timeout: float, skip: set[str]
) -> None:
    """The trace an import wrote: it validates, then goes through every trace command."""
    outcome = run(["validate", str(out)], timeout)
    if outcome.code != 0 or outcome.crash:
        why = outcome.crash or next(iter(outcome.stderr.splitlines()[1:2]), outcome.stderr[:200])
        report.fail(case, outcome, f"the import wrote a trace validate refuses: {why}")
    check_case(f"{case} → trace", "trace", out, workdir, report, timeout, skip)


def fuzz(
    cases: int,
    seed: int = 0,
    kinds: tuple[str, ...] = ("trace", "scenario", "transcript", "api_log"),
    timeout: float = 60.0,
    skip: set[str] | None = None,
    workdir: Path | None = None,
    log: Callable[[str], None] | None = None,
    only: frozenset[str] = frozenset(),
) -> Report:
    """``cases`` damaged files per kind (plus every special file), each through its commands."""
    report = Report()
    rng = random.Random(seed)
    found = sources()
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tracer-fuzz-")))
        for kind in kinds:
            if not found[kind]:
                continue
            for special in SPECIAL:
                path = special_file(special, workdir)
                check_case(f"{kind}/{special}", kind, path, workdir, report, timeout, skip or set())
            for n in range(cases):
                source = rng.choice(found[kind])
                name, data = mutate(rng, source.read_bytes(), kind, only)
                case = f"{kind}/{source.name}/{name}#{n}"
                path = workdir / f"case-{kind}-{n}{source.suffix}"
                path.write_bytes(data)
                check_case(case, kind, path, workdir, report, timeout, skip or set())
                path.unlink()
                if log and (n + 1) % 25 == 0:
                    log(f"{kind}: {n + 1}/{cases} cases, {len(report.failures)} failure(s)")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=300, help="damaged files per kind")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kinds", default="trace,scenario,transcript,api_log")
    parser.add_argument("--skip", default="", help="commands to leave out, e.g. replay,record")
    parser.add_argument("--only", default="", help="mutations to draw from, e.g. shape,block")
    parser.add_argument(
        "--timeout", type=float, default=60.0, help="seconds before a run is a hang"
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    start = time.monotonic()
    report = fuzz(
        args.cases,
        args.seed,
        tuple(args.kinds.split(",")),
        args.timeout,
        set(filter(None, args.skip.split(","))),
        log=lambda text: print(text, file=sys.stderr, flush=True),
        only=frozenset(filter(None, args.only.split(","))),
    )
    for failure in report.failures[:50]:
        print(failure)
    for signature, count in report.signatures.most_common():
        print(f"{count:>5}  {signature}")
    for command, count in sorted(report.runs.items()):
        print(f"{command:>20}: {count} runs")
    total = sum(report.runs.values())
    print(f"{time.monotonic() - start:.0f} s")
    hangs = report.signatures["hang"]
    crashes = sum(1 for f in report.failures if not f.endswith(": hang"))
    print(f"{total} runs, {crashes} failures, {hangs} hangs")
    return 1 if report.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
