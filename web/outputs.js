// The outputs of a run, by job, in a matrix grid of chosen variables; a full-size viewer with
// the request, checks, cost and provenance; approve / reject by click or key.
(() => {
  const { el, data, decided, post, text, pageLinks, main } = window.gw;
  // One page of a long run's outputs at a time: the server reads and sends only these.
  const { run, outputs, page } = data();
  const pages = () => pageLinks(page, "outputs", (n) => `/runs/${run.id}/outputs?page=${n}`);
  const byId = new Map(outputs.map((item) => [item.id, item]));
  const jobs = [...new Set(outputs.map((item) => item.job))];
  // A judge's verdict is a suggestion: the filter shows what it said, and where a person disagreed.
  const FILTERS = {
    "": () => true,
    pass: (item) => item.judge?.verdict === "pass",
    fail: (item) => item.judge?.verdict === "fail",
    undecided: (item) => item.judge?.verdict === "undecided",
    disagree: (item) => disagrees(item),
  };
  const judged = outputs.some((item) => item.judge !== null);
  const filter = el(
    "select",
    {
      id: "judge-filter",
      onchange: () => {
        for (const redraw of redraws) redraw();
      },
    },
    el("option", { value: "" }, "every output"),
    el("option", { value: "pass" }, "judge said yes"),
    el("option", { value: "fail" }, "judge said no"),
    el("option", { value: "undecided" }, "judge undecided"),
    el("option", { value: "disagree" }, "judge and person disagree"),
  );
  const redraws = [];
  main.append(
    el(
      "p",
      {},
      el("a", { href: `/runs/${run.id}` }, "← progress and timeline"),
      " · keys: Enter open, ← → move, a approve, r reject, u undecide, Esc close",
      judged ? el("label", {}, " · show ", filter) : null,
    ),
    pages(),
  );

  /** Whether a person's decision goes against the judge's verdict (the person's stands). */
  function disagrees(item) {
    if (item.judge === null || item.review === null || item.judge.verdict === "undecided")
      return false;
    return (item.judge.verdict === "pass") !== (item.review === "approved");
  }

  function judgeBadge(item) {
    if (item.judge === null) return null;
    const word = { pass: "yes", fail: "no", undecided: "undecided" }[item.judge.verdict];
    return el(
      "span",
      { class: `badge judge ${item.judge.verdict}`, title: item.judge.reason ?? "" },
      // The person's decision stands; the badge says so, as the gallery and docs/judge.md do.
      `judge suggests: ${word}${disagrees(item) ? " (overruled)" : ""}`,
    );
  }

  /** The value of a grid axis for an output. */
  function axisValue(item, axis) {
    if (axis === "") return "";
    if (axis === "repeat") return `repeat ${item.repeat + 1}`;
    if (axis === "take") return `take ${item.take}`;
    return item.headings?.[axis] ?? text(item.vars[axis]);
  }

  function pictureOf(item) {
    const [key, index] = item.id.split("/");
    if (item.thumb) return gw.file(`/files/${key}/${index}/thumb`);
    if (item.kind === "image") return gw.file(`/files/${key}/${index}/file`);
    return null;
  }

  function figure(item) {
    const src = pictureOf(item);
    const open = () => openViewer(item.id);
    return el(
      "figure",
      { class: `item ${item.review ?? ""}`, dataset: { id: item.id, review: item.review ?? "" } },
      src === null
        ? el(
            "button",
            { class: `thumb ${item.kind}`, title: "open (Enter)", onclick: open },
            item.excerpt ?? item.kind,
          )
        : el("img", { class: "thumb", src, alt: item.label, loading: "lazy", onclick: open }),
      el(
        "figcaption",
        {},
        el("span", { class: "label" }, item.label),
        item.take > 1 ? el("span", { class: "badge take" }, `take ${item.take}`) : null,
        item.check === "failed" ? el("span", { class: "badge failed" }, "check failed") : null,
        judgeBadge(item),
        item.selected === true ? el("span", { class: "badge selected" }, "selected") : null,
        el("span", { class: "decision" }, decided(item.review, item.by)),
        el(
          "button",
          { class: "approve", title: "approve (a)", onclick: () => decide(item.id, "approved") },
          "✓",
        ),
        el(
          "button",
          { class: "reject", title: "reject (r)", onclick: () => decide(item.id, "rejected") },
          "✗",
        ),
      ),
    );
  }

  function section(job) {
    const all = outputs.filter((item) => item.job === job);
    let items = all;
    const names = [...new Set(items.flatMap((item) => Object.keys(item.vars)))];
    const axes = [...names, "repeat", "take"];
    const choice = (id, chosen) =>
      el(
        "select",
        { class: id, onchange: () => draw() },
        el("option", { value: "" }, "(none)"),
        axes.map((axis) => el("option", { value: axis, selected: axis === chosen }, axis)),
      );
    const rows = choice("rows", names[0] ?? (items.some((i) => i.repeat > 0) ? "repeat" : ""));
    const cols = choice("cols", names[1] ?? "");
    const grid = el("div", { class: "grid" });
    function draw() {
      items = all.filter(FILTERS[filter.value] ?? FILTERS[""]);
      const rowValues = [...new Set(items.map((item) => axisValue(item, rows.value)))];
      const colValues = [...new Set(items.map((item) => axisValue(item, cols.value)))];
      const head = el(
        "tr",
        {},
        el("th", {}, ""),
        colValues.map((value) => el("th", {}, value)),
      );
      const body = rowValues.map((row) =>
        el(
          "tr",
          {},
          el("th", {}, row),
          colValues.map((col) =>
            el(
              "td",
              {},
              items
                .filter(
                  (item) =>
                    axisValue(item, rows.value) === row && axisValue(item, cols.value) === col,
                )
                .sort((a, b) => a.label.localeCompare(b.label) || a.take - b.take)
                .map(figure),
            ),
          ),
        ),
      );
      grid.replaceChildren(el("table", {}, el("thead", {}, head), el("tbody", {}, body)));
    }
    draw();
    redraws.push(draw);
    return el(
      "section",
      { class: "job", dataset: { job } },
      el(
        "h2",
        {},
        job,
        " ",
        el("label", {}, "rows ", rows),
        " ",
        el("label", {}, "columns ", cols),
      ),
      grid,
    );
  }
  main.append(...jobs.map(section));
  if (page.pages > 1) main.append(pages());

  // --- review
  async function decide(id, decision) {
    const item = byId.get(id);
    const [key, index] = id.split("/");
    const note = viewer.open && current === id ? noteInput.value : null;
    const answer = await post("/api/reviews", { key, index: Number(index), decision, note });
    item.review = decision;
    item.note = note;
    item.by = answer.by ?? null;
    for (const node of document.querySelectorAll(`figure.item[data-id="${id}"]`)) {
      node.dataset.review = decision ?? "";
      node.className = `item ${decision ?? ""}`;
      node.querySelector(".decision").textContent = decided(decision, item.by);
    }
    if (current === id) showDecision(item);
  }

  // --- the viewer
  const media = el("div", { class: "media", id: "viewer-media", tabindex: "-1" });
  const title = el("h2", { id: "viewer-title" });
  const noteInput = el("input", { id: "note", type: "text", placeholder: "note (optional)" });
  // Keys typed in the note are the note's: which keys do what is said where they apply.
  const GRID_KEYS = "keys: ← → move, a approve, r reject, u undecide, Esc close";
  const NOTE_KEYS = "in the note: Enter rejects with this note, Esc leaves the note";
  const keysHint = el("p", { id: "viewer-keys", class: "hint" }, GRID_KEYS);
  noteInput.addEventListener("focus", () => {
    keysHint.textContent = NOTE_KEYS;
  });
  noteInput.addEventListener("blur", () => {
    keysHint.textContent = GRID_KEYS;
  });
  noteInput.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.isComposing) return;
    event.preventDefault();
    noteInput.blur();
    void decide(current, "rejected");
  });
  const decision = el("p", { id: "viewer-decision" });
  const details = el("div", { class: "details" });
  const viewer = el(
    "div",
    { id: "viewer", class: "viewer", hidden: true },
    media,
    el(
      "aside",
      {},
      el("button", { class: "close", onclick: () => closeViewer() }, "close (Esc)"),
      title,
      decision,
      noteInput,
      el("button", { id: "approve", onclick: () => decide(current, "approved") }, "approve (a)"),
      el("button", { id: "reject", onclick: () => decide(current, "rejected") }, "reject (r)"),
      // Below the buttons: its text changes as the note is left, and must not move them.
      keysHint,
      details,
    ),
  );
  viewer.open = false;
  document.body.append(viewer);
  let current = null;

  function showDecision(item) {
    decision.textContent =
      item.review === null
        ? "not reviewed"
        : `${decided(item.review, item.by)}${item.note ? `: ${item.note}` : ""}`;
    decision.className = item.review ?? "";
  }

  const order = () => [...document.querySelectorAll("figure.item")].map((node) => node.dataset.id);

  async function openViewer(id) {
    const item = byId.get(id);
    current = id;
    viewer.hidden = false;
    viewer.open = true;
    const [key, index] = id.split("/");
    const file = gw.file(`/files/${key}/${index}/file`);
    title.textContent = `${item.label}${item.take > 1 ? ` (take ${item.take})` : ""}`;
    noteInput.value = item.note ?? "";
    showDecision(item);
    if (item.kind === "image") media.replaceChildren(el("img", { src: file, alt: item.label }));
    else if (item.kind === "video")
      media.replaceChildren(
        el("video", { src: file, controls: true, autoplay: true, muted: true, loop: true }),
      );
    else if (item.kind === "text") {
      const answer = el("pre", { class: "answer" });
      media.replaceChildren(answer);
      answer.textContent = await (await fetch(file)).text();
    } else media.replaceChildren(el("a", { href: file }, "open the file"));
    const detail = await (await fetch(`/api/outputs/${key}/${index}`)).json();
    if (current !== id) return;
    if (detail.upstream_picture) {
      // A caption beside the picture it was written from.
      const [from, at] = detail.upstream_picture.split("/");
      const upstream = byId.get(detail.upstream_picture);
      const src = gw.file(`/files/${from}/${at}/${upstream?.kind === "video" ? "poster" : "file"}`);
      media.prepend(
        el(
          "figure",
          { class: "upstream" },
          el("img", { src, alt: `from ${detail.upstream ?? ""}` }),
          el("figcaption", {}, `written from ${upstream?.label ?? "its upstream"}`),
        ),
      );
    }
    const block = (name, value) => [
      el("h3", {}, name),
      el("pre", {}, JSON.stringify(value, null, 2)),
    ];
    details.replaceChildren(
      el("p", {}, `cost ${detail.cost ?? "unknown"} · ${detail.model ?? ""}`),
      ...block("variables", {
        vars: detail.vars,
        repeat: detail.repeat,
        take: detail.take,
        upstream: detail.upstream,
      }),
      ...block("request", detail.request),
      ...block("checks", detail.checks),
      el(
        "p",
        {},
        `C2PA manifest in the original: ${detail.c2pa === undefined ? "not checked" : detail.c2pa ? "yes" : "no"}`,
      ),
      ...(detail.renditions?.length > 0 ? renditionLinks(key, index, detail.renditions) : []),
      ...block("provenance", detail.provenance),
    );
  }

  /** Each rendition the sidecar lists, a link to its file served by name. */
  function renditionLinks(key, index, renditions) {
    return [
      el("h3", {}, "renditions"),
      el(
        "ul",
        { class: "renditions" },
        renditions.map((rendition) =>
          el(
            "li",
            {},
            el(
              "a",
              {
                href: gw.file(
                  `/files/${key}/${index}/rendition/${encodeURIComponent(rendition.name)}`,
                ),
              },
              `${rendition.name} · ${rendition.width}×${rendition.height}`,
            ),
          ),
        ),
      ),
    ];
  }

  function closeViewer() {
    viewer.hidden = true;
    viewer.open = false;
    media.replaceChildren();
  }

  function step(by) {
    const ids = order();
    const at = ids.indexOf(current);
    const next = ids[at + by];
    if (next !== undefined) void openViewer(next);
  }

  document.addEventListener("keydown", (event) => {
    if (["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement?.tagName ?? "")) {
      if (event.key === "Escape") document.activeElement.blur();
      return;
    }
    if (!viewer.open) {
      if (event.key === "Enter" && outputs.length > 0) void openViewer(order()[0]);
      return;
    }
    if (event.key === "Escape") closeViewer();
    else if (event.key === "ArrowRight" || event.key === "j") step(1);
    else if (event.key === "ArrowLeft" || event.key === "k") step(-1);
    else if (event.key === "a") void decide(current, "approved");
    else if (event.key === "r" || event.key === "x") void decide(current, "rejected");
    else if (event.key === "u") void decide(current, null);
  });
})();
