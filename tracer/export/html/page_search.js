// Search, over both languages of every step: the field in the header, its count, the list of
// hits above the timeline, and the query marked in the step on screen.
//
// The first search reads each chunk's lines once (never the raw JSON) into an index: per
// chunk, its distinct lines lowercased as one text, where each line starts, and each step's
// line numbers. A query is then an indexOf over that text, a line hit marks its steps. The
// index is bounded (INDEX_CHARS of text); past that a search reads the rest of the chunks
// again. The list shows the first RESULTS_SHOWN hits and says how many there are in all.
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
