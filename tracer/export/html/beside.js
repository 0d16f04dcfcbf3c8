// tracer's comparison page: two runs, aligned row by row (tracer/compare/align.py), drawn side
// by side. Every word of a step was rendered at export time by tracer's replay layers; this
// script only places the two steps of a row and lights the lines one has and the other lacks.
"use strict";
(function () {
  const meta = JSON.parse(document.getElementById("tracer-meta").textContent);
  const $ = (id) => document.getElementById(id);
  const LANGS = ["zh", "en"];
  const SIDES = ["a", "b"];
  const CHANGES = { s: "change_same", c: "change_changed", a: "change_only_a", b: "change_only_b" };

  // -- the data: each side's chunks, read as the single page reads them -------------------
  const INFLATES = typeof DecompressionStream === "function";
  const blocks = new Map();
  function readBlock(id) {
    const el = document.getElementById(id);
    const text = el.textContent;
    if (el.dataset.encoding !== "deflate") return Promise.resolve(JSON.parse(text));
    if (!INFLATES) return Promise.reject(new Error("no DecompressionStream"));
    const bytes = Uint8Array.from(atob(JSON.parse(text)), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).text().then(JSON.parse);
  }
  function loaded() {
    return document.readyState !== "loading"
      ? Promise.resolve()
      : new Promise((done) => document.addEventListener("DOMContentLoaded", done, { once: true }));
  }
  function block(id, first) {
    if (!blocks.has(id)) {
      blocks.set(id, (first ? Promise.resolve() : loaded()).then(() => readBlock(id)));
      if (blocks.size > 24) blocks.delete(blocks.keys().next().value);
    }
    return blocks.get(id);
  }
  function stepLines(k, step) {  // side k's step: its lines in the reader's language
    const side = meta.sides[k];
    const number = Math.floor(step / side.chunk);
    return block(SIDES[k] + "-chunk-" + number, number === 0).then((c) => {
      const ids = c.steps[step - c.first][lang === "zh" ? 0 : 1];
      return ids.map((id) => c.lines[id]);
    });
  }
  // The rows come as runs [first A step, first B step, change, length] (beside.py, row_runs).
  const rowA = new Int32Array(meta.count), rowB = new Int32Array(meta.count);
  const changes = [];
  {
    let at = 0;
    for (const [a0, b0, code, n] of meta.rows) {
      for (let k = 0; k < n; k++) {
        rowA[at + k] = a0 >= 0 ? a0 + k : -1;
        rowB[at + k] = b0 >= 0 ? b0 + k : -1;
      }
      changes.push(code.repeat(n));
      at += n;
    }
  }
  const rowChange = changes.join("");
  const rowTurns = new Int32Array(meta.count);
  { let at = 0; for (const [value, times] of meta.turns) { rowTurns.fill(value, at, at + times); at += times; } }

  // -- state ------------------------------------------------------------------------------
  let lang = document.documentElement.lang.startsWith("zh") ? "zh" : "en";
  try {
    const chosen = localStorage.getItem("tracer-lang");
    if (LANGS.includes(chosen)) lang = chosen;
  } catch (e) { /* storage may be off for file:// pages */ }
  let row = rowFromHash();
  function rowFromHash() {
    const m = /^#row-(\d+)$/.exec(location.hash);
    return Math.max(0, Math.min(m ? parseInt(m[1], 10) - 1 : 0, meta.count - 1));
  }
  function say(key, values) {
    const words = meta.words[key] || {};
    let text = words[lang] || words.en || key;
    for (const [name, value] of Object.entries(values || {})) text = text.replace("{" + name + "}", value);
    return text;
  }
  function stageName(k, step) {
    const side = meta.sides[k];
    const stage = side.stages[side.stage[step]];
    return (side.stage_names[stage] || {})[lang] || stage;
  }
  function rowStage(r) {
    const k = rowA[r] >= 0 ? 0 : 1;
    return stageName(k, k ? rowB[r] : rowA[r]);
  }

  // -- drawing ----------------------------------------------------------------------------
  function plain(line) {
    return typeof line === "string" ? line : line.map((s) => (typeof s === "string" ? s : s[0])).join("");
  }
  function lineInto(parent, line, styles) {
    if (typeof line === "string") { parent.append(line); return; }
    for (const seg of line) {
      if (typeof seg === "string") { parent.append(seg); continue; }
      const span = document.createElement("span");
      span.className = styles[seg[1]];
      span.textContent = seg[0];
      parent.append(span);
    }
  }
  // The lines of a step, each lit when the other side's step has no such line.
  function linesInto(el, lines, styles, other) {
    el.replaceChildren();
    lines.forEach((line, i) => {
      if (i) el.append("\n");
      if (other && !other.has(plain(line))) {
        const lit = document.createElement("span");
        lit.className = "differs";
        lineInto(lit, line, styles);
        el.append(lit);
      } else {
        lineInto(el, line, styles);
      }
    });
  }
  function link(r, text) {
    const a = document.createElement("a");
    a.href = "#row-" + (r + 1);
    a.textContent = text;
    return a;
  }
  function turnName(turn) { return turn ? say("turn", { turn }) : say("setup"); }

  function drawStatic() {
    document.documentElement.lang = lang === "zh" ? "zh-Hans" : "en";
    $("lang").textContent = lang === "zh" ? "English" : "中文";
    $("lang").title = say("language");
    const label = (id, text) => { $(id).title = text; $(id).setAttribute("aria-label", text); };
    label("prev", say("previous") + " (←)");
    label("next", say("next") + " (→)");
    label("prev-diff", say("previous_difference") + " ([)");
    label("next-diff", say("next_difference") + " (])");
    SIDES.forEach((letter, k) => {
      const side = meta.sides[k];
      const title = (side.title && side.title[lang]) || "";
      $("side-" + letter + "-name").textContent =
        say("side_" + letter, { name: side.name }) + (title ? " · " + title : "");
    });
    // The summary first: what differs, and what the doctor found on either side.
    const s = meta.summary;
    $("summary-title").textContent = say(s.differences ? "beside_summary" : "beside_none");
    $("summary-counts").textContent = say("beside_counts", s);
    const items = s.listed.map((r) => {
      const li = document.createElement("li");
      li.className = "change-" + rowChange[r];
      li.append(link(r, say("row_n", { n: r + 1 })), " · " + turnName(rowTurns[r]) + " · " +
        say(CHANGES[rowChange[r]]) + " · " + rowStage(r));
      return li;
    });
    if (s.differences > s.listed.length) {
      const li = document.createElement("li");
      li.textContent = say("findings_more", { n: s.differences - s.listed.length });
      items.push(li);
    }
    for (const f of meta.findings) {
      const li = document.createElement("li");
      li.className = f.severity;
      li.append(say("side_" + SIDES[f.side], { name: meta.sides[f.side].name }) + " · " +
        say(f.severity) + " · " + f.rule + " · ", link(f.row, say("row_n", { n: f.row + 1 })));
      items.unshift(li);
    }
    $("summary-list").replaceChildren(...items);
  }

  let pending = 0;
  function draw() {
    const want = row, ticket = ++pending;
    const code = rowChange[want];
    $("position").textContent = say("row_position", {
      turn: turnName(rowTurns[want]), stage: rowStage(want), row: want + 1, total: meta.count,
      change: say(CHANGES[code]),
    });
    document.body.dataset.change = code;
    const steps = [rowA[want], rowB[want]];
    return Promise.all(steps.map((s, k) => (s >= 0 ? stepLines(k, s) : Promise.resolve(null))))
      .then((both) => {
        if (ticket !== pending) return;
        const sets = both.map((lines) => (lines ? new Set(lines.map(plain)) : null));
        both.forEach((lines, k) => {
          const letter = SIDES[k];
          const styles = meta.sides[k].styles;
          $("side-" + letter).classList.toggle("missing", !lines);
          if (!lines) {
            $("side-" + letter + "-title").textContent = say("not_in_run");
            $("side-" + letter + "-view").replaceChildren();
            return;
          }
          // Lines lit only where the two steps differ (a step one run lacks is lit whole).
          const other = code === "c" ? sets[1 - k] : null;
          linesInto($("side-" + letter + "-title"), lines.slice(0, 1), styles, null);
          linesInto($("side-" + letter + "-view"), lines.slice(lines[1] === "" ? 2 : 1), styles, other);
        });
        document.body.dataset.row = String(want + 1);
      });
  }

  // -- moving: one control steps both -----------------------------------------------------
  function go(target) {
    row = Math.max(0, Math.min(target, meta.count - 1));
    const hash = "#row-" + (row + 1);
    if (location.hash !== hash) history.replaceState(null, "", hash);
    return draw();
  }
  function nextDifference(delta) {
    for (let r = row + delta; r >= 0 && r < meta.count; r += delta) {
      if (rowChange[r] !== "s") return go(r);
    }
    return Promise.resolve();
  }
  $("prev").addEventListener("click", () => go(row - 1));
  $("next").addEventListener("click", () => go(row + 1));
  $("prev-diff").addEventListener("click", () => nextDifference(-1));
  $("next-diff").addEventListener("click", () => nextDifference(1));
  $("lang").addEventListener("click", () => {
    lang = lang === "zh" ? "en" : "zh";
    try { localStorage.setItem("tracer-lang", lang); } catch (e) { /* a private window */ }
    drawStatic();
    draw();
  });
  window.addEventListener("hashchange", () => { const r = rowFromHash(); if (r !== row) go(r); });
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const keys = {
      ArrowLeft: () => go(row - 1), ArrowRight: () => go(row + 1),
      "[": () => nextDifference(-1), "]": () => nextDifference(1),
      Home: () => go(0), End: () => go(meta.count - 1),
    };
    const act = keys[e.key];
    if (act) { e.preventDefault(); act(); }
  });

  drawStatic();
  if (!meta.count) { document.body.dataset.row = "0"; return; }
  const first = draw().then(() => performance.mark("tracer-first-step"));  // bench/html_export.py
  window.tracerBeside = { go, ready: () => first, get row() { return row; } };
})();
