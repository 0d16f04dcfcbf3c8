// Where the reader is in the session: the chapter's table of contents (each section, the steps
// that show it, and links to it in the other recordings' pages of a site) and the timeline, the
// main loop's turns with the current one opened on its steps, where a subagent's loop is folded
// into one line that opens on its own steps.
//
// A step's turn comes from meta.top, the first step of each main-loop turn: the steps before
// the first turn are a group of their own (the set-up), and groupOf finds a step's group by
// binary search. A long session's list of turns is made after the first step is drawn.

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
