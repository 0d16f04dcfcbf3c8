// Drawing: a step's lines, the page around them, and draw(), which puts the current step on
// screen. Every word was rendered by tracer at export time; drawing only places lines (a line is
// a string, or segments [text, style number] that become spans with the style's class).
//
// draw() is called on every move. The parts that need no chunk (the position, the timeline,
// the findings, the chapter's panels, the chart) are drawn at once; the step's own lines wait for
// their chunk, and a ticket makes sure only the newest move draws when several are in flight.
// drawStatic() draws what changes only with the language.

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
