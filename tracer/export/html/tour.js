// tracer's tour page: `tracer tour` in a browser. Predict first, then step.
// Every card, question, reveal and step was written by tracer's tour package at export time
// (tracer/export/html/tour_payload.py); this script only chooses which to show, checks an
// answer as tracer.tour.checkpoints.Question.check does, and keeps the answers in localStorage.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("tour-data").textContent);
  const $ = (id) => document.getElementById(id);
  const LANGS = ["zh", "en"];
  const STORE = "tracer-tour";
  const stops = data.stops;
  const END = stops.length;  // the position after the last stop: the end card

  // -- state: the language, the stop, the answers (checkpoint id -> {given, right}) ------------
  let lang = document.documentElement.lang.startsWith("zh") ? "zh" : "en";
  try {
    const chosen = localStorage.getItem("tracer-lang");  // shared with the recordings' pages
    if (LANGS.includes(chosen)) lang = chosen;
  } catch (e) { /* storage may be off */ }
  // tracer.tour.checkpoints.normalize and Question.check, as the terminal checks an answer.
  const normalize = (text) => String(text).trim().toLowerCase().split(/\s+/).filter(Boolean).join(" ");
  const check = (q, given) => normalize(given) === normalize(q.answer);
  let answers = {};
  let along = -1;  // after an answer: which step of the question's path is shown (-1: the last)
  let position = 0;
  try {
    const saved = JSON.parse(localStorage.getItem(STORE) || "null");
    if (saved && saved.version === 1) {
      if (saved.answers && typeof saved.answers === "object") {
        // Only answers this tour can have, checked again (a hand-edited store proves nothing).
        for (const stop of stops) {
          const q = stop.question;
          const got = q && saved.answers[q.checkpoint];
          if (!got || typeof got.given !== "string") continue;
          if (!q.numeric && !q.choices.some((c) => c.value === got.given)) continue;
          answers[q.checkpoint] = { given: got.given, right: check(q, got.given) };
        }
      }
      const at = saved.stop === "end" ? END : stops.findIndex((s) => s.id === saved.stop);
      if (at >= 0) position = at;
    }
  } catch (e) { /* a damaged or blocked store: a fresh start, as tracer tour does */ }
  const fromHash = /^#stop-(\d+)$/.exec(location.hash);
  if (fromHash) position = Math.max(0, Math.min(parseInt(fromHash[1], 10) - 1, END));

  function save() {
    const stop = position === END ? "end" : stops[position].id;
    try { localStorage.setItem(STORE, JSON.stringify({ version: 1, stop, answers })); } catch (e) { /* a private window */ }
  }
  function say(key, values) {
    const words = data.words[key] || {};
    let text = words[lang] || words.en || key;
    for (const [name, value] of Object.entries(values || {})) text = text.split("{" + name + "}").join(String(value));
    return text;
  }

  // -- lines, drawn as the replay page draws them (page_draw.js lineInto) ------------------
  function lineInto(parent, line, given) {
    const put = (text) => (given === undefined ? text : text.split(data.given).join(given));
    if (typeof line === "string") { parent.append(put(line)); return; }
    for (const seg of line) {
      if (typeof seg === "string") { parent.append(put(seg)); continue; }
      const span = document.createElement("span");
      span.className = data.styles[seg[1]];
      span.textContent = put(seg[0]);
      parent.append(span);
    }
  }
  function linesInto(el, lines, given) {
    el.replaceChildren();
    lines.forEach((line, i) => { if (i) el.append("\n"); lineInto(el, line, given); });
  }
  const table = (ids) => ids.map((n) => data.lines[n]);

  // -- the score, live: each checkpoint's line as tracer.tour.cards.score_text writes it ------
  function scoreLines() {
    let right = 0, answered = 0;
    const rows = data.checkpoints.map((c, k) => {
      const got = answers[c.id];
      if (got) { answered += 1; if (got.right) right += 1; }
      return data.lines[data.score_lines[lang][k][got ? (got.right ? 1 : 2) : 0]];
    });
    const head = [[say("score", { right, answered, total: data.checkpoints.length }), -1]];
    return [head, ...rows];
  }
  function cardLines(stop) {
    const lines = table(stop.card[lang]);
    const at = stop.score_at && stop.score_at[lang];
    if (!at) return lines;
    return [...lines.slice(0, at[0]), ...scoreLines(), ...lines.slice(at[1])];
  }
  // The score's first line is bold, like score_text's (style -1: the class "b").
  data.styles[-1] = "b";

  // -- drawing ------------------------------------------------------------------------------
  function drawStatic() {
    document.documentElement.lang = lang === "zh" ? "zh-Hans" : "en";
    $("heading").textContent = say("heading");
    $("skip").textContent = say("heading");
    $("home").textContent = say("recordings");
    $("lang").textContent = lang === "zh" ? "English" : "中文";
    $("lang").lang = lang === "zh" ? "en" : "zh-Hans";
    $("lang").title = say("language");
    $("restart").textContent = say("start_over");
    $("prev-stop").textContent = "← " + say("previous_stop");
    $("next-stop").textContent = say("next_stop") + " →";
    $("prev-stop").title = say("previous_stop") + " (← W)";
    $("next-stop").title = say("next_stop") + " (→ w)";
    $("answers-title").textContent = say("review_title");
    $("keys").textContent = say("stop_keys");
    $("predict").textContent = say("predict");
    $("number-label").textContent = say("your_number");
    $("check").textContent = say("check");
    $("path-prev").textContent = "‹ " + say("previous");
    $("path-next").textContent = say("next") + " ›";
  }

  function drawStep(view, how, from) {
    const step = data.steps[view];
    const lines = table(step[lang]);
    const where = { recording: step.recording, step: step.step + 1, total: step.total, from: from + 1 };
    $("where").textContent = say(how, where);
    $("where").className = "where " + how;
    linesInto($("step-title"), lines.slice(0, 1));
    linesInto($("view"), lines.slice(lines[1] === "" ? 2 : 1));
    const open = $("open-step");
    open.hidden = !step.href;
    if (step.href) { open.href = step.href + "#step-" + (step.step + 1); open.textContent = say("open_step"); }
    document.body.dataset.view = step.recording + "#" + (step.step + 1);
  }

  function drawQuestion(stop) {
    const q = stop.question;
    const got = answers[q.checkpoint];
    $("prompt").textContent = q.prompt[lang];
    $("ask").hidden = false;
    $("ask").classList.toggle("answered", !!got);
    $("choices").hidden = q.numeric || !!got;
    $("number").hidden = !q.numeric || !!got;
    $("ask-hint").hidden = !!got;
    if (!got) {
      $("ask-hint").textContent = say(q.numeric ? "number_keys" : "choose_keys", { n: q.choices.length })
        + (lang === "zh" ? "" : " ") + say("skip_note");  // no space between Chinese sentences
      $("choices").replaceChildren(...q.choices.map((c, i) => {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "choice";
        b.dataset.value = c.value;
        const n = document.createElement("span");
        n.className = "n";
        n.textContent = String(i + 1);
        b.append(n, c.label[lang]);
        return b;
      }));
      $("number-input").value = "";
      $("number-input").removeAttribute("aria-invalid");
      $("reveal").hidden = true;
      $("path").hidden = true;
      drawStep(stop.view, "standing");
      return;
    }
    // Answered: the reveal, and the step that shows the answer (the tour stepped on); the
    // steps on the way there can be stepped through.
    const reveal = q.numeric ? q.reveal[got.right ? "right" : "wrong"] : q.reveal[got.given];
    $("reveal").hidden = false;
    $("reveal").className = "panel reveal " + (got.right ? "right" : "wrong");
    linesInto($("reveal"), table(reveal[lang]), got.given);
    const last = q.path.length - 1;
    const at = along < 0 || along > last ? last : along;
    $("path").hidden = last < 1;
    $("path-prev").disabled = at === 0;
    $("path-next").disabled = at === last;
    if (at === last) drawStep(q.land, "stepped", data.steps[stop.view].step);
    else drawStep(q.path[at], "section_step");
  }
  function walk(delta) {
    const stop = stops[position];
    const q = stop && stop.question;
    if (!q || !answers[q.checkpoint]) return;
    const last = q.path.length - 1;
    along = Math.max(0, Math.min((along < 0 ? last : along) + delta, last));
    draw();
  }

  function drawEnd() {
    $("position").textContent = say("tour", { n: END, total: END });
    $("stop-title").textContent = say("done_title");
    $("card").hidden = false;
    linesInto($("card"), [...scoreLines(), "", say("done")]);
    $("ask").hidden = true;
    $("reveal").hidden = true;
    $("tour-step").hidden = true;
  }

  function drawAnswers() {
    $("answer-list").replaceChildren(...data.checkpoints.map((c) => {
      const li = document.createElement("li");
      const got = answers[c.id];
      const a = document.createElement("a");
      a.href = "#stop-" + (c.stop + 1);
      a.textContent = (got ? (got.right ? "✓ " : "✗ ") : "· ") + c.name[lang];
      a.className = got ? (got.right ? "fg-green" : "fg-red") : "d";
      li.append(a);
      if (got) {
        const stop = stops[c.stop];
        const choice = stop && stop.question.choices.find((x) => x.value === got.given);
        li.append(" " + say("review_given", { given: choice ? choice.label[lang] : got.given }));
      } else {
        li.append(lang === "zh" ? "（" + say("unanswered") + "）" : " (" + say("unanswered") + ")");
      }
      return li;
    }));
  }

  function draw() {
    const hash = "#stop-" + (position + 1);
    if (location.hash !== hash) history.replaceState(null, "", hash);
    drawAnswers();
    $("prev-stop").disabled = position === 0;
    $("next-stop").disabled = position === END;
    document.body.dataset.stop = String(position + 1);
    if (position === END) { drawEnd(); return; }
    const stop = stops[position];
    $("tour-step").hidden = false;
    $("position").textContent = say("tour", { n: position + 1, total: END });
    $("stop-title").textContent = stop.title[lang];
    document.body.dataset.kind = stop.kind;
    if (stop.kind === "section") {
      $("path").hidden = true;
      $("card").hidden = false;
      linesInto($("card"), cardLines(stop));
      $("ask").hidden = true;
      $("reveal").hidden = true;
      drawStep(stop.view, "section_step");
    } else {
      $("card").hidden = true;
      drawQuestion(stop);
    }
  }

  // -- moving and answering ---------------------------------------------------------------
  function notice(text) { $("notice").textContent = text || ""; $("notice").hidden = !text; }
  function go(target) {
    const moved = Math.max(0, Math.min(target, END));
    if (moved !== position) { window.scrollTo(0, 0); along = -1; }  // a new stop: from its top
    position = moved;
    notice("");
    save();
    draw();
  }
  function commit(given) {
    const stop = stops[position];
    if (!stop || !stop.question || answers[stop.question.checkpoint]) return;
    const q = stop.question;
    answers[q.checkpoint] = { given, right: check(q, given) };
    save();
    draw();
    $("reveal").focus();  // the reader's eyes (and a screen reader) go to what they learned
  }
  $("choices").addEventListener("click", (e) => {
    const b = e.target.closest("button.choice");
    if (b) commit(b.dataset.value);
  });
  $("ask").addEventListener("submit", (e) => {
    e.preventDefault();
    const given = $("number-input").value.trim();
    if (!/^[+-]?\d+$/.test(given)) { $("number-input").setAttribute("aria-invalid", "true"); $("number-input").focus(); return; }
    commit(given);
  });
  $("path-prev").addEventListener("click", () => walk(-1));
  $("path-next").addEventListener("click", () => walk(1));
  $("prev-stop").addEventListener("click", () => go(position - 1));
  $("next-stop").addEventListener("click", () => go(position + 1));
  $("restart").addEventListener("click", () => {
    answers = {};
    go(0);
    notice(say("started_over"));
  });
  $("lang").addEventListener("click", () => {
    lang = lang === "zh" ? "en" : "zh";
    try { localStorage.setItem("tracer-lang", lang); } catch (e) { /* a private window */ }
    drawStatic();
    draw();
  });
  $("answer-list").addEventListener("click", () => { $("answers").open = false; });
  window.addEventListener("hashchange", () => {
    const m = /^#stop-(\d+)$/.exec(location.hash);
    if (m && parseInt(m[1], 10) - 1 !== position) go(parseInt(m[1], 10) - 1);
  });
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target.closest && e.target.closest("input")) { if (e.key === "Escape") e.target.blur(); return; }
    const stop = stops[position];
    const open = stop && stop.question && !answers[stop.question.checkpoint] ? stop.question : null;
    if (open && /^[0-9]$/.test(e.key)) {
      if (open.numeric) { $("number-input").focus(); return; }  // the digit goes into the box
      const choice = open.choices[Number(e.key) - 1];
      if (choice) { e.preventDefault(); commit(choice.value); }
      return;
    }
    const keys = {
      ArrowRight: () => go(position + 1), w: () => go(position + 1),
      ArrowLeft: () => go(position - 1), W: () => go(position - 1), B: () => go(position - 1),
      v: () => { $("answers").open = !$("answers").open; },
    };
    const act = keys[e.key];
    if (act) { e.preventDefault(); act(); }
  });

  drawStatic();
  draw();
  window.tracerTour = { go, get position() { return position; } };
})();
