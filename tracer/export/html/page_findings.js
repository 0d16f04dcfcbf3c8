// What the doctor found (tracer doctor's checks, run on the trace at export time): the summary
// above the page, a line per finding with a link to its step, and on each step the findings at
// that step with their hints. A dot (●) marks an error and a triangle (▲) a warning, here and on
// the timeline's turns and steps (markOf and worstOf are used there too).

function worstOf(found) { return found.some((f) => f.severity === "error") ? "error" : "warning"; }
function markOf(worst) {
  const mark = document.createElement("span");
  mark.className = "mark-" + worst;
  mark.textContent = worst === "error" ? " ●" : " ▲";
  mark.title = say(worst);
  return mark;
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
