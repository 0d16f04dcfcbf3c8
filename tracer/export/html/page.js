// tracer's replay page: draws one step at a time from the data tracer wrote into this file.
// Every word of a step was rendered by tracer's replay layers at export time (see
// tracer/export/html/payload.py); this script only places lines, never decides what they say.
"use strict";
(function () {
  const meta = JSON.parse(document.getElementById("tracer-meta").textContent);
  const $ = (id) => document.getElementById(id);
  const NUMBERS = "①②③④";
  const LANGS = ["zh", "en"];

  // -- the data ---------------------------------------------------------------------------
  function expand(runs) {
    const out = new Int32Array(meta.count);
    let at = 0;
    for (const [value, times] of runs) { out.fill(value, at, at + times); at += times; }
    return out;
  }
  const turns = expand(meta.turns);
  const byStage = (table) => (s) => {
    const other = table.others[s];
    return other === undefined ? table.usual[meta.stage[s]] : other;
  };
  const chapterOf = byStage(meta.chapter);
  const sectionOf = byStage(meta.section);
  const findingsAt = new Map();
  for (const f of meta.findings) {
    if (!findingsAt.has(f.step)) findingsAt.set(f.step, []);
    findingsAt.get(f.step).push(f);
  }
  // Each chunk of steps is two blocks: "chunk-N" (the lines) and "raw-N" (the raw JSON).
  const blocks = new Map();  // block id -> Promise of its data
  // A browser without DecompressionStream (before Chrome 80, Firefox 113, Safari 16.4) cannot
  // open a deflated block: it says so rather than drawing blank steps.
  const INFLATES = typeof DecompressionStream === "function";
  class NoInflate extends Error {}

  function readBlock(id) {
    const el = document.getElementById(id);
    const text = el.textContent;
    if (el.dataset.encoding !== "deflate") return Promise.resolve(JSON.parse(text));
    if (!INFLATES) return Promise.reject(new NoInflate(id));
    const binary = atob(JSON.parse(text));
    const bytes = new Uint8Array(binary.length);  // (a loop: Uint8Array.from with a function
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);  // is 3x slower)
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
      // The first chunk comes before this script; a later one may still be half read.
      const ready = first ? Promise.resolve() : loaded();
      blocks.set(id, ready.then(() => readBlock(id)));
      if (blocks.size > 24) blocks.delete(blocks.keys().next().value);  // keep a few
    }
    return blocks.get(id);
  }
  const chunk = (number) => block("chunk-" + number, number === 0);
  function stepData(step) {
    const number = Math.floor(step / meta.chunk);
    return Promise.all([chunk(number), block("raw-" + number, number === 0)]).then(([c, r]) => {
      const [zh, en] = c.steps[step - c.first];
      const [raw, note] = r.raw[step - r.first];
      return { lines: { zh, en }, raw, note, table: c.lines };
    });
  }

  // -- state ------------------------------------------------------------------------------
  // The language the page was exported in, unless the reader switched (remembered per browser).
  let lang = document.documentElement.lang.startsWith("zh") ? "zh" : "en";
  try {
    const chosen = localStorage.getItem("tracer-lang");
    if (LANGS.includes(chosen)) lang = chosen;
  } catch (e) { /* storage may be off for file:// pages */ }
  let step = stepFromHash();
  let drawn = -1;
  const opened = new Set();  // subagent loops the reader opened

  function stepFromHash() {
    const m = /^#step-(\d+)$/.exec(location.hash);
    const n = m ? parseInt(m[1], 10) - 1 : 0;
    return Math.max(0, Math.min(n, meta.count - 1));
  }
  function say(key, values) {
    const words = meta.words[key] || {};
    let text = words[lang] || words.en || key;
    for (const [name, value] of Object.entries(values || {})) text = text.replace("{" + name + "}", value);
    return text;
  }
  function stageName(code) {
    const stage = meta.stages[code];
    return (meta.stage_names[stage] || {})[lang] || stage;
  }

  // -- drawing lines ----------------------------------------------------------------------
  function lineInto(parent, line) {
    if (typeof line === "string") { parent.append(line); return; }
    for (const seg of line) {
      if (typeof seg === "string") { parent.append(seg); continue; }
      const span = document.createElement("span");
      span.className = meta.styles[seg[1]];
      span.textContent = seg[0];
      parent.append(span);
    }
  }
  function linesInto(el, lines) {
    el.replaceChildren();
    lines.forEach((line, i) => { if (i) el.append("\n"); lineInto(el, line); });
  }
  function plain(line) {
    return typeof line === "string" ? line : line.map((s) => (typeof s === "string" ? s : s[0])).join("");
  }

  // -- the page around the step -----------------------------------------------------------
  function label(id, text) { $(id).title = text; $(id).setAttribute("aria-label", text); }
  function drawStatic() {
    document.documentElement.lang = lang === "zh" ? "zh-Hans" : "en";
    const title = (meta.title && meta.title[lang]) || "";
    $("title").textContent = meta.name + (title ? " · " + title : "");
    document.title = $("title").textContent + " · tracer";
    $("skip").textContent = say("skip");
    // A page of a site (export --all) links back to the site's front page.
    $("home").hidden = !Object.keys(meta.links).length;
    $("home").textContent = "↖ " + say("home");
    $("journey").setAttribute("aria-label", say("journey"));
    $("journey").replaceChildren(...meta.stations.map((station, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.station = String(i + 1);
      const name = (meta.stage_names[station] || {})[lang] || station;
      b.textContent = NUMBERS[i] + " " + name;
      b.title = say("station_next", { name }) + " (" + (i + 1) + ")";
      return b;
    }));
    label("prev", say("previous") + " (←)");
    label("next", say("next") + " (→)");
    label("prev-turn", say("previous_turn") + " ([)");
    label("next-turn", say("next_turn") + " (])");
    $("lang").textContent = lang === "zh" ? "English" : "中文";
    $("lang").lang = lang === "zh" ? "en" : "zh-Hans";
    $("lang").title = say("language");
    $("query").placeholder = say("search_prompt");
    $("query").setAttribute("aria-label", say("search"));
    $("timeline-title").textContent = say("timeline");
    $("raw-title").textContent = say("mode_raw");
    $("toc-title").textContent = say("contents");
    const notices = [];
    if (meta.torn_line !== null) notices.push(say("torn", { line: meta.torn_line, steps: meta.count }));
    if (!INFLATES && meta.encoding === "deflate") notices.push(say("no_inflate", { n: meta.chunk }));
    $("notice").hidden = !notices.length;
    $("notice").textContent = notices.join(" ");
    drawToc();
    drawSummary();
    turnItems = null;  // the turns' names are in the language of the page
  }

  function drawToc() {
    $("toc-list").replaceChildren(...meta.toc.map((section) => {
      const li = document.createElement("li");
      const name = section.title[lang] || section.id;
      if (section.first !== null) {
        // The name opens the first step listed after it, and each number its own step (the
        // name once opened the section's anchored step, which the list need not show).
        const places = section.here.length ? section.here : [section.first];
        const link = (s, text) => {
          const a = document.createElement("a");
          a.href = "#step-" + (s + 1);
          a.textContent = text;
          return a;
        };
        li.append(link(places[0], name));
        const [before, after] = say("toc_steps").split("{steps}");
        const sep = say("list_sep");
        li.append(before);
        places.forEach((s, i) => { if (i) li.append(sep); li.append(link(s, String(s + 1))); });
        li.append((section.more ? sep + "…" : "") + after);
      } else {
        li.append(name);
      }
      for (const [name2, href, first] of section.elsewhere) {
        const a = document.createElement("a");
        a.href = href + "#step-" + (first + 1);
        a.textContent = name2;
        li.append(" · ", a);
      }
      return li;
    }));
  }

  // The main loop's turns, each [first step, end); the set-up before the first is a group too.
  const groups = meta.top.length && meta.top[0] === 0 ? meta.top : [0, ...meta.top];
  function groupOf(s) {  // the number of the group holding step s
    let lo = 0, hi = groups.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (groups[mid] <= s) lo = mid; else hi = mid - 1; }
    return lo;
  }
  function topTurn(s) {  // the main-loop turn holding step s: [first, end)
    const g = groupOf(s);
    return [groups[g], g + 1 < groups.length ? groups[g + 1] : meta.count];
  }
  function worstOf(found) { return found.some((f) => f.severity === "error") ? "error" : "warning"; }
  function markOf(worst) {
    const mark = document.createElement("span");
    mark.className = "mark-" + worst;
    mark.textContent = worst === "error" ? " ●" : " ▲";
    mark.title = say(worst);
    return mark;
  }
  const flagged = new Map();  // group -> the findings in that turn
  for (const f of meta.findings) {
    const g = groupOf(f.step);
    if (!flagged.has(g)) flagged.set(g, []);
    flagged.get(g).push(f);
  }

  function stepLink(s) {
    const a = document.createElement("a");
    a.href = "#step-" + (s + 1);
    a.textContent = (s + 1) + " · " + stageName(meta.stage[s]);
    const found = findingsAt.get(s);
    if (found) a.append(markOf(worstOf(found)));
    if (s === step) a.setAttribute("aria-current", "step");
    return a;
  }

  // Every turn of the main loop is listed (a link to its first step, marked when the doctor
  // found something in it); the current one is opened on its steps. The list is made once, in
  // the reader's language, and only the opened turn changes as the reader steps.
  let turnItems = null, openedTurn = -1;
  function turnName(g) {
    const turn = turns[groups[g]];
    if (!turn) return say("setup");
    // The main loop goes on after a subagent's loop: the same turn again, as the replay says.
    return say(g && turns[groups[g - 1]] === turn ? "turn_resumed" : "turn", { turn });
  }
  function turnItem(g) {
    const li = document.createElement("li");
    li.className = "turn-item";
    const a = document.createElement("a");
    a.className = "turn-link";
    a.href = "#step-" + (groups[g] + 1);
    a.textContent = turnName(g);
    if (flagged.has(g)) a.append(markOf(worstOf(flagged.get(g))));
    li.append(a);
    return li;
  }
  // A long session's list (thousands of turns) is made after the first step is drawn, so the
  // page opens as fast as a short one; until then the current turn is listed alone.
  const TURNS_AT_ONCE = 400;
  let turnsWhole = false, turnsReady = false;
  function drawTurns(whole) {
    const list = document.createDocumentFragment();
    turnItems = new Array(groups.length);
    const g = groupOf(step);
    for (let k = whole ? 0 : g; k < (whole ? groups.length : g + 1); k++) {
      turnItems[k] = turnItem(k);
      list.append(turnItems[k]);
    }
    $("turn").replaceChildren(list);
    turnsWhole = whole;
    openedTurn = -1;
  }
  function drawTimeline() {
    // A keyboard reader who moved from the timeline stays in it, on the current step.
    const hadFocus = $("turn").contains(document.activeElement);
    if (!turnItems || (!turnsWhole && !turnItems[groupOf(step)])) {
      drawTurns(groups.length <= TURNS_AT_ONCE || turnsReady);
    }
    const g = groupOf(step);
    const [first, end] = topTurn(step);
    const root = document.createElement("ol");
    root.className = "turn-steps";
    const stack = [{ list: root, last: Infinity }];
    for (let s = first; s < end; s++) {
      while (s > stack[stack.length - 1].last) stack.pop();
      const loop = meta.loops.find((l) => l[0] === s);
      if (loop) {
        const details = document.createElement("details");
        details.className = "loop";
        const key = loop[0];
        details.open = opened.has(key) || (step >= loop[0] && step <= loop[1]);
        details.addEventListener("toggle", () => { if (details.open) opened.add(key); else opened.delete(key); });
        const summary = document.createElement("summary");
        // What the subagent was asked to do (the Task's description); its ids on hover.
        summary.textContent = say("subagent", { what: loop[5] || loop[3] });
        summary.title = say("subagent_ids", { loop: loop[3], id: loop[4] });
        const inner = document.createElement("ol");
        details.append(summary, inner);
        const li = document.createElement("li");
        li.append(details);
        stack[stack.length - 1].list.append(li);
        stack.push({ list: inner, last: loop[1] });
      }
      const li = document.createElement("li");
      li.append(stepLink(s));
      stack[stack.length - 1].list.append(li);
    }
    const item = turnItems[g];
    if (openedTurn !== g && openedTurn >= 0 && turnItems[openedTurn]) {
      const old = turnItems[openedTurn];
      old.classList.remove("here");
      if (old.lastChild.tagName === "OL") old.lastChild.remove();
    }
    if (item.lastChild.tagName === "OL") item.lastChild.replaceWith(root); else item.append(root);
    item.classList.add("here");
    if (openedTurn !== g) {  // a new turn: bring it into the timeline's view (not the page's)
      const box = $("turn");
      const off = item.getBoundingClientRect().top - box.getBoundingClientRect().top;
      if (off < 0 || off > box.clientHeight - 48) box.scrollTop += off - 8;
    }
    openedTurn = g;
    if (hadFocus) { const here = root.querySelector("[aria-current=step]"); if (here) here.focus(); }
  }

  // What the doctor found, first: a line per finding, with a link to its step.
  const SUMMARY_MOST = 20;
  function drawSummary() {
    const found = meta.findings;
    $("summary").hidden = !found.length;
    if (!found.length) return;
    const errors = found.filter((f) => f.severity === "error").length;
    const warnings = found.length - errors;
    $("summary-title").textContent = say("findings_title", {
      counts: [
        say(errors === 1 ? "one_error" : "n_errors", { n: errors }),
        say(warnings === 1 ? "one_warning" : "n_warnings", { n: warnings }),
      ].join(say("list_comma")),
    });
    const items = found.slice(0, SUMMARY_MOST).map((f) => {
      const li = document.createElement("li");
      li.className = f.severity;
      const a = document.createElement("a");
      a.href = "#step-" + (f.step + 1);
      a.textContent = say("step_n", { n: f.step + 1 });
      const head = document.createElement("strong");
      head.textContent = say(f.severity) + " · " + f.rule;
      const mark = markOf(f.severity === "error" ? "error" : "warning");
      mark.textContent = mark.textContent.trim() + " ";
      head.prepend(mark);
      li.append(head, " · ", a, document.createTextNode(" " + f.text[lang]));
      return li;
    });
    if (found.length > SUMMARY_MOST) {
      const li = document.createElement("li");
      li.textContent = say("findings_more", { n: found.length - SUMMARY_MOST });
      items.push(li);
    }
    $("summary-list").replaceChildren(...items);
  }

  function drawFindings() {
    const found = findingsAt.get(step) || [];
    $("findings").replaceChildren(...found.map((f) => {
      const li = document.createElement("li");
      li.className = f.severity;
      const head = document.createElement("strong");
      head.textContent = say(f.severity) + " · " + f.rule;
      li.append(head, document.createTextNode(" " + f.text[lang]));
      if (f.hint[lang]) {
        const hint = document.createElement("div");
        hint.textContent = f.hint[lang];
        li.append(hint);
      }
      return li;
    }));
  }

  const SVG = "http://www.w3.org/2000/svg";  // a namespace name, never fetched
  function svg(name, attrs) {
    const el = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    return el;
  }
  function drawChart() {
    const fig = $("chart");
    const cols = meta.requests;
    const count = cols.step.length;
    if (!count) { fig.hidden = true; return; }
    fig.hidden = false;
    const parts = ["input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"];
    const most = 60;  // sample a long session to about this many bars
    const stride = Math.max(1, Math.ceil(count / most));
    const shown = [];
    for (let i = 0; i < count; i += 1) if (i % stride === 0 || i === count - 1) shown.push(i);
    let now = -1;
    shown.forEach((row, i) => { if (cols.step[row] <= step) now = i; });
    const W = 600, H = 44, gap = 14, room = H - 12, bar = W / shown.length;  // room: under the label
    const chart = svg("svg", { viewBox: `0 0 ${W} ${2 * H + gap + 12}`, role: "img" });
    chart.setAttribute("aria-label", say("requests_chart"));
    const total = (row) => parts.reduce((sum, k) => sum + (cols[k][row] || 0), 0);
    const topBytes = Math.max(...shown.map((row) => cols.bytes[row]), 1);
    const topTokens = Math.max(...shown.map(total), 1);
    // The request of this step is outlined; those not sent yet are faint.
    const mark = (i) => (i === now ? " now" : i > now ? " later" : "");
    const titled = (el, text) => { const t = svg("title", {}); t.textContent = text; el.append(t); return el; };
    shown.forEach((row, i) => {
      const x = i * bar + 1, w = Math.max(bar - 2, 1);
      const label = say("request_n", { n: cols.n[row] });
      const h = (cols.bytes[row] / topBytes) * room;
      chart.append(titled(svg("rect", { x, y: H - h, width: w, height: h, class: "bytes" + mark(i) }),
        label + say("bytes_n", { n: cols.bytes[row].toLocaleString() })));
      let y = 2 * H + gap;
      for (const k of parts) {
        const v = cols[k][row] || 0;
        if (!v) continue;
        const hh = (v / topTokens) * room;
        y -= hh;
        const name = k.replace("_input_tokens", "").replace("_tokens", "");
        chart.append(titled(svg("rect", { x, y, width: w, height: hh, class: name + mark(i) }),
          label + say(name) + " " + v.toLocaleString()));
      }
    });
    const note = (y, text) => { const el = svg("text", { x: 2, y }); el.textContent = text; chart.append(el); };
    note(10, say("bytes") + " ≤ " + topBytes.toLocaleString());
    const known = parts.some((k) => cols[k].some((v) => v !== null));
    note(H + gap + 10, known
      ? say("tokens_axis", {
        top: topTokens.toLocaleString(),
        parts: [say("input"), say("cache_read"), say("cache_creation")].join(" / "),
      })
      : say("no_tokens"));
    const caption = document.createElement("figcaption");
    caption.textContent = say("requests_chart");
    fig.replaceChildren(caption, chart);
  }

  function drawChapter() {
    $("chapter-title").textContent = say("chapter") + " · " + stageName(meta.stage[step]);
    linesInto($("chapter-step"), meta.panels[chapterOf(step)][lang]);
    linesInto($("chapter-section"), meta.panels[sectionOf(step)][lang]);
  }

  function drawPosition() {
    const code = meta.stage[step];
    const stage = meta.stages[code];
    const journey = $("journey");
    for (const b of journey.children) {
      if (meta.stations[Number(b.dataset.station) - 1] !== stage) { b.removeAttribute("aria-current"); continue; }
      b.setAttribute("aria-current", "step");
      // On a phone the four steps are a row that scrolls sideways: keep the current one in it.
      const left = b.offsetLeft - journey.offsetLeft;
      if (left < journey.scrollLeft || left + b.offsetWidth > journey.scrollLeft + journey.clientWidth) {
        journey.scrollLeft = left - 8;
      }
    }
    // The main loop's turn, as the timeline names it; inside a subagent, its own turn after it
    // (a subagent counts its turns from 1, as tracer show counts them).
    const turn = turns[groups[groupOf(step)]];
    const where = { turn, step: step + 1, total: meta.count };
    let text = say(turn ? "turn_step" : "setup_step", where);  // turn 0: the set-up
    if (meta.loops.some((l) => l[0] <= step && step <= l[1])) {
      text += " · " + say(turns[step] ? "subagent_turn" : "subagent_setup", { turn: turns[step] });
    }
    $("position").textContent = text;
  }

  let pending = 0;
  function draw() {
    const want = step;
    const ticket = ++pending;
    drawPosition();
    drawTimeline();
    drawFindings();
    drawChapter();
    drawChart();
    return stepData(want).then((d) => {
      if (ticket !== pending) return;
      const lines = d.lines[lang].map((n) => d.table[n]);
      linesInto($("step-title"), lines.slice(0, 1));
      linesInto($("view"), lines.slice(lines[1] === "" ? 2 : 1));
      // A folded raw view says so in the reader's language (the JSON is the same in both).
      $("raw-json").textContent = d.raw + (d.note ? "\n" + d.note[lang] : "");
      if (want !== drawn) $("raw").open = false;
      drawn = want;
      showStepTop();
      const lit = searched ? highlight(searched) : null;
      if (lit && jumped) lit.scrollIntoView({ block: "nearest" });
      jumped = false;
      document.body.dataset.step = String(want + 1);
    }, (error) => {
      if (ticket !== pending || !(error instanceof NoInflate)) throw error;
      $("step-title").textContent = say("step_n", { n: want + 1 });
      $("view").textContent = say("no_inflate", { n: meta.chunk });
      $("raw-json").textContent = "";
      drawn = want;
      document.body.dataset.step = String(want + 1);
    });
  }

  // A reader who scrolled down into a step (a phone shows one column) sees the next one from
  // its start, just under the sticky header, without scrolling back up.
  function showStepTop() {
    const under = document.querySelector(".top").getBoundingClientRect().bottom;
    const top = $("step").getBoundingClientRect().top;
    if (top < under) window.scrollBy(0, top - under - 4);
  }

  // -- moving -----------------------------------------------------------------------------
  function go(target) {
    step = Math.max(0, Math.min(target, meta.count - 1));
    const hash = "#step-" + (step + 1);
    if (location.hash !== hash) history.replaceState(null, "", hash);
    return draw();
  }
  function nextTurn(delta) {
    const at = groupOf(step);
    const first = groups[at];
    if (delta > 0) return go(at + 1 < groups.length ? groups[at + 1] : meta.count - 1);
    return go(step > first || at <= 0 ? first : groups[at - 1]);
  }
  function nextStation(number) {
    const stage = meta.stations[number - 1];
    const code = meta.stages.indexOf(stage);
    if (code < 0) return;
    for (let k = 1; k <= meta.count; k++) {
      const s = (step + k) % meta.count;
      if (meta.stage[s] === code) return go(s);
    }
  }

  // -- search -----------------------------------------------------------------------------
  // Both languages of every step. The first search reads each chunk's lines once (never the
  // raw JSON) into an index: per chunk, its distinct lines lowercased as one text, where each
  // line starts, and each step's line numbers. A query is then an indexOf over that text, a
  // line hit marks its steps. The index is bounded (INDEX_CHARS of text); past that a search
  // reads the rest of the chunks again. The list shows the first RESULTS_SHOWN hits and says
  // how many there are in all.
  const RESULTS_SHOWN = 200;
  const INDEX_CHARS = 48e6;
  const INDEX_BATCH = 32;
  const index = new Map();  // chunk number -> {first, text, starts, ids, ends}
  let indexChars = 0, indexFull = false;
  async function chunkIndex(n) {
    if (index.has(n)) return index.get(n);
    const c = blocks.has("chunk-" + n) ? await chunk(n) : await readBlock("chunk-" + n);
    const texts = c.lines.map((line) => plain(line).toLowerCase());
    const starts = new Int32Array(texts.length + 1);
    let at = 0;
    texts.forEach((t, i) => { starts[i] = at; at += t.length + 1; });
    starts[texts.length] = at;
    let size = 0;
    for (const s of c.steps) size += s[0].length + s[1].length;
    const ids = new Int32Array(size), ends = new Int32Array(c.steps.length);
    let k = 0;
    c.steps.forEach((s, i) => { for (const l of s) for (const id of l) ids[k++] = id; ends[i] = k; });
    const entry = { first: c.first, text: texts.join("\n"), starts, ids, ends };
    if (indexChars + entry.text.length <= INDEX_CHARS) {
      index.set(n, entry);
      indexChars += entry.text.length;
    } else {
      indexFull = true;
    }
    return entry;
  }
  function stepsMatching(e, q, out) {
    const lit = new Uint8Array(e.starts.length);
    let at = e.text.indexOf(q), any = false;
    while (at >= 0) {
      let lo = 0, hi = e.starts.length - 2;
      while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (e.starts[mid] <= at) lo = mid; else hi = mid - 1; }
      lit[lo] = 1;
      any = true;
      at = e.text.indexOf(q, e.starts[lo + 1]);  // on to the next line
    }
    if (!any) return;
    for (let i = 0, k = 0; i < e.ends.length; i++) {
      let found = false;
      for (; k < e.ends[i]; k++) if (lit[e.ids[k]]) found = true;
      if (found) out.push(e.first + i);
    }
  }
  // The query in the step's title and view, marked; the first mark, or null.
  function highlight(q) {
    let first = null;
    for (const el of [$("step-title"), $("view")]) {
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      const nodes = [];
      while (walker.nextNode()) nodes.push(walker.currentNode);
      for (const node of nodes) {
        const text = node.data, low = text.toLowerCase();
        if (low.length !== text.length) continue;  // lowercasing moved the characters: skip
        let at = low.indexOf(q);
        if (at < 0) continue;
        const parts = document.createDocumentFragment();
        let last = 0;
        while (at >= 0) {
          parts.append(text.slice(last, at));
          const mark = document.createElement("mark");
          mark.className = "hit";
          mark.textContent = text.slice(at, at + q.length);
          parts.append(mark);
          if (!first) first = mark;
          last = at + q.length;
          at = low.indexOf(q, last);
        }
        parts.append(text.slice(last));
        node.replaceWith(parts);
      }
    }
    return first;
  }
  // The index is made once, chunk by chunk, from the moment the reader goes to the search
  // field (so most of it is ready by the time a query is typed); a search waits for it.
  let indexing = null;
  function makeIndex() {
    if (!indexing) {
      indexing = (async () => {
        const entries = [];
        const chunkCount = Math.ceil(meta.count / meta.chunk);
        // A few chunks at a time: each inflation waits on its stream, and they overlap.
        for (let n = 0; n < chunkCount; n += INDEX_BATCH) {
          const batch = [];
          for (let k = n; k < Math.min(n + INDEX_BATCH, chunkCount); k++) batch.push(chunkIndex(k));
          const done = await Promise.allSettled(batch);
          const failed = done.find((d) => d.status === "rejected");
          entries.push(...done.filter((d) => d.status === "fulfilled").map((d) => d.value));
          if (!failed) continue;
          if (failed.reason instanceof NoInflate) break;  // this browser reads the first chunk only
          throw failed.reason;
        }
        if (indexFull) indexing = null;  // not all of it kept: read again next time
        return entries;
      })();
    }
    return indexing;
  }
  let hits = [], hitAt = -1, searched = "", jumped = false;
  async function search(query) {
    const q = query.trim().toLowerCase();
    if (!q) {
      $("results").hidden = true; $("search-count").textContent = ""; hits = []; searched = "";
      return draw();
    }
    if (q !== searched) {
      searched = q;
      $("search-count").textContent = say("searching");
      const found = [];
      const entries = await makeIndex();
      if (searched !== q) return;  // a newer search took over
      for (const e of entries) stepsMatching(e, q, found);
      hits = found;
      hitAt = hits.findIndex((s) => s >= step) - 1;
      if (hitAt < -1) hitAt = -1;
      drawResults();
    }
    if (!hits.length) { $("search-count").textContent = say("no_matches", { query }); return; }
    hitAt = (hitAt + 1) % hits.length;
    $("search-count").textContent = say("matches", {
      n: (hitAt + 1).toLocaleString(), total: hits.length.toLocaleString(),
    });
    jumped = true;
    await go(hits[hitAt]);
  }
  function drawResults() {
    const list = $("results");
    const items = hits.slice(0, RESULTS_SHOWN).map((s) => {
      const li = document.createElement("li");
      const a = stepLink(s);
      a.classList.add("hit-link");
      li.append(a);
      return li;
    });
    if (hits.length > RESULTS_SHOWN) {  // an honest count: the list is not all of them
      const li = document.createElement("li");
      li.className = "results-more";
      li.textContent = say("results_first", {
        shown: RESULTS_SHOWN, total: hits.length.toLocaleString(),
      });
      items.push(li);
    }
    list.replaceChildren(...items);
    list.setAttribute("aria-label", say("results"));
    list.hidden = !hits.length;
  }

  // -- print: the whole session ------------------------------------------------------------
  // Printing gives every step in the reader's language, not the one on screen. A print is
  // made at once, so only blocks that need no inflating are read: on a long page (deflated
  // past its first chunk) the print holds the first chunk's steps and says so.
  let printedIn = "";
  function drawPrint() {
    if (printedIn === lang) return;
    printedIn = lang;
    const out = document.createDocumentFragment();
    let count = 0;
    for (let n = 0; n * meta.chunk < meta.count; n++) {
      const el = document.getElementById("chunk-" + n);
      if (el.dataset.encoding === "deflate") break;
      const c = JSON.parse(el.textContent);
      c.steps.forEach((ids, i) => {
        const lines = ids[lang === "zh" ? 0 : 1].map((id) => c.lines[id]);
        const section = document.createElement("section");
        section.className = "printed-step";
        const title = document.createElement("h3");
        linesInto(title, lines.slice(0, 1));
        title.prepend(say("step_n", { n: c.first + i + 1 }) + " · ");
        const view = document.createElement("pre");
        view.className = "view";
        linesInto(view, lines.slice(lines[1] === "" ? 2 : 1));
        section.append(title, view);
        out.append(section);
        count += 1;
      });
    }
    if (count < meta.count) {
      const note = document.createElement("p");
      note.className = "notice";
      note.textContent = say("print_part", { n: count, total: meta.count.toLocaleString() });
      out.prepend(note);
    }
    $("print-all").replaceChildren(out);
  }
  window.addEventListener("beforeprint", drawPrint);
  matchMedia("print").addEventListener("change", (e) => { if (e.matches) drawPrint(); });

  // -- wiring -----------------------------------------------------------------------------
  $("prev").addEventListener("click", () => go(step - 1));
  $("next").addEventListener("click", () => go(step + 1));
  $("prev-turn").addEventListener("click", () => nextTurn(-1));
  $("next-turn").addEventListener("click", () => nextTurn(1));
  $("journey").addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (b) nextStation(Number(b.dataset.station));
  });
  $("lang").addEventListener("click", () => {
    lang = lang === "zh" ? "en" : "zh";
    try { localStorage.setItem("tracer-lang", lang); } catch (e) { /* a private window */ }
    drawStatic();  // the search covers both languages: its hits stay, named anew
    if (hits.length) drawResults();
    draw();
  });
  $("search").addEventListener("submit", (e) => { e.preventDefault(); search($("query").value); });
  $("query").addEventListener("focus", () => { makeIndex(); }, { once: true });
  window.addEventListener("hashchange", () => { const s = stepFromHash(); if (s !== step) go(s); });
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const typing = e.target.closest && e.target.closest("input, textarea, select");
    if (typing) { if (e.key === "Escape") e.target.blur(); return; }
    const keys = {
      ArrowLeft: () => go(step - 1), ArrowRight: () => go(step + 1),
      "[": () => nextTurn(-1), "]": () => nextTurn(1),
      Home: () => go(0), End: () => go(meta.count - 1),
      "/": () => $("query").focus(),
    };
    const act = keys[e.key] || ("1234".includes(e.key) && e.key.length === 1 ? () => nextStation(Number(e.key)) : null);
    if (act) { e.preventDefault(); act(); }
  });

  drawStatic();
  if (!meta.count) {  // a trace with no steps yet: say so, and draw nothing else
    $("view").textContent = say("no_steps");
    document.body.dataset.step = "0";
    return;
  }
  const first = draw().then(() => {
    performance.mark("tracer-first-step");  // bench/html_export.py
    if (!turnsWhole) {
      setTimeout(() => { turnsReady = true; turnItems = null; drawTimeline(); }, 0);
    }
  });
  window.tracerPage = { go, ready: () => first, get step() { return step; }, count: meta.count };
})();
