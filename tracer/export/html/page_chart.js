// The requests chart under a step: each request the session sent, as two bars, its size in
// bytes above and its tokens below (input, cache read, cache creation, stacked). A long
// session is sampled to about 60 bars; the request of the current step is outlined and the
// ones not sent yet are faint. Drawn as SVG elements in the page (nothing is fetched).

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
