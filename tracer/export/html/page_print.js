// Printing: the whole session, every step in the reader's language, not the one step on screen
// (page.css's print rules hide the screen's parts and show what is drawn here). A print is
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
