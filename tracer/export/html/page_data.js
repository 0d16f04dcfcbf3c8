// The data, and where the reader is in it. First of the page's script: page.py joins the
// page_*.js files, in a fixed order, into one function, so every later part uses the names
// declared here (meta, $, say, step, lang, stepData...).
//
// tracer wrote everything into the page. The meta (names, words in both languages, each step's
// stage, the turns as runs, the doctor's findings...) is one JSON block; the steps come in chunks
// of meta.chunk, each two blocks: "chunk-N", every step's lines as numbers into the chunk's own
// table of distinct lines, and "raw-N", every step's raw JSON. On a long session the blocks after
// the first are deflated and base64-coded: a block is read (and inflated) only when a step in it
// is drawn or searched, and a few are kept.

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
