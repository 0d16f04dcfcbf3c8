// Moving, and the start. go() takes the reader to a step (the address keeps it, #step-N, so a
// link or a reload opens the same step); nextTurn and nextStation find the step to go to. The
// buttons and keys that move (← →, [ ], Home, End, 1 to 4 for a station, / to search), the
// language switch and the search field are wired here; last of the page's script, the first
// step is drawn, and window.tracerPage lets the tests and bench/html_export.py drive the page.

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

// -- the start --------------------------------------------------------------------------
drawStatic();
if (!meta.count) {  // a trace with no steps yet: say so, and draw nothing else
  $("view").textContent = say("no_steps");
  document.body.dataset.step = "0";
} else {
  const first = draw().then(() => {
    performance.mark("tracer-first-step");  // bench/html_export.py
    if (!turnsWhole) {
      setTimeout(() => { turnsReady = true; turnItems = null; drawTimeline(); }, 0);
    }
  });
  window.tracerPage = { go, ready: () => first, get step() { return step; }, count: meta.count };
}
