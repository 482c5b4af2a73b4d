// A run's page: live counts by server-sent events, failures with reasons, and a timeline.
(() => {
  const { el, data, duration, failureItem, pageLinks, main } = window.gw;
  const first = data();
  const id = first.run.id;
  const counts = el("ul", { class: "counts", id: "counts" });
  const spend = el("p", { id: "spend" });
  const status = el("p", { id: "status" });
  const summary = el("p", { id: "summary", class: "summary" });
  const failures = el("ul", { id: "failures", class: "failures" });
  const notices = el("ul", { id: "notices", class: "notices" });
  const timeline = el("div", { id: "timeline", class: "timeline" });
  const cost = el("div", { id: "cost", class: "cost" });
  const timelinePages = el("div", { id: "timeline-pages" });
  const order = el(
    "select",
    { id: "timeline-order", onchange: () => loadTimeline(1) },
    el("option", { value: "recorded" }, "in order of start"),
    el("option", { value: "slowest" }, "slowest first"),
    el("option", { value: "failed" }, "failed first"),
  );
  const failedOnly = el("input", {
    type: "checkbox",
    id: "failed-only",
    onchange: () => loadTimeline(1),
  });
  main.append(
    el("p", {}, el("a", { href: `/runs/${id}/outputs` }, "outputs and review →")),
    status,
    counts,
    spend,
    summary,
    notices,
    el("h2", {}, "Failures"),
    failures,
    el("h2", {}, "Cost"),
    cost,
    el("h2", {}, "Timeline ", order, el("label", {}, failedOnly, " failed only")),
    el(
      "p",
      { class: "legend" },
      ["queued", "submitted", "completed", "downloaded"].map((phase) =>
        el("span", { class: `seg ${phase}` }, phase),
      ),
    ),
    timelinePages,
    timeline,
  );

  function draw(progress) {
    status.textContent = `${progress.run.status}, ${duration(progress.elapsed)}, ${progress.rate} tasks/min`;
    const states = Object.entries(progress.states).sort(([a], [b]) => a.localeCompare(b));
    counts.replaceChildren(
      el("li", {}, el("b", { dataset: { count: "tasks" } }, String(progress.tasks)), " tasks"),
      ...states.map(([state, n]) =>
        el("li", {}, el("b", { dataset: { count: state } }, String(n)), ` ${state}`),
      ),
      el(
        "li",
        {},
        el("b", { dataset: { count: "outputs" } }, String(progress.outputs)),
        " outputs",
      ),
    );
    spend.textContent = spendText(progress);
    notices.replaceChildren(
      ...progress.notices.map((notice) =>
        el(
          "li",
          { dataset: { type: notice.type } },
          `${new Date(notice.at).toLocaleTimeString()} ${notice.message}`,
        ),
      ),
    );
    const more = progress.failed - progress.failures.length;
    failures.replaceChildren(
      ...(progress.failures.length === 0
        ? [el("li", {}, "none")]
        : progress.failures.map(failureItem)),
      ...(more > 0
        ? [
            el(
              "li",
              { class: "more" },
              `… and ${more} more: `,
              el("a", { href: `/runs/${id}/failures` }, `all ${progress.failed} failures`),
            ),
          ]
        : []),
    );
  }

  /** What this run paid, then what its tasks cost in all where earlier runs paid some. */
  function spendText(progress) {
    const budget = progress.max_cost === null ? "" : ` of max_cost ${progress.max_cost}`;
    return progress.paid === progress.spent
      ? `paid ${progress.paid}${budget}`
      : `paid ${progress.paid} this run (${progress.spent} in all${budget})`;
  }

  function finish(progress) {
    draw(progress);
    const done = progress.states.done ?? 0;
    summary.textContent = `Run ${progress.run.status} after ${duration(progress.elapsed)}: ${progress.tasks} tasks, ${done} done, ${progress.failed} failed; ${progress.outputs} outputs; ${spendText(progress)}${progress.run.stop_reason ? ` — ${progress.run.stop_reason}` : ""}`;
    summary.dataset.finished = "true";
    void loadTimeline();
    void loadCost();
  }

  const money = (n) => (n !== 0 && Math.abs(n) < 0.01 ? String(n) : n.toFixed(2));
  const difference = (g) => {
    const d = Math.round((g.spent - g.estimate) * 1e6) / 1e6;
    return d === 0 ? "" : `${d > 0 ? "+" : "-"}${money(Math.abs(d))}`;
  };

  /** What the run paid by job beside the estimates; a bar per day where the store has several. */
  async function loadCost() {
    const response = await fetch(`/api/runs/${id}/cost`);
    const panel = await response.json();
    const { run } = panel;
    const rows = run.groups.map((g) =>
      el(
        "tr",
        { dataset: { job: g.key } },
        el("td", {}, g.key),
        el("td", {}, String(g.tasks)),
        el("td", {}, money(g.spent)),
        el("td", {}, money(g.estimate)),
        el("td", {}, difference(g)),
      ),
    );
    const table = el(
      "table",
      { id: "cost-by-job" },
      el(
        "tr",
        {},
        ["job", "tasks", "spent", "estimate", "difference"].map((h) => el("th", {}, h)),
      ),
      ...rows,
    );
    const total = el(
      "p",
      { id: "cost-total" },
      `spent ${money(run.spent)}, estimated ${money(run.estimate)}`,
    );
    const parts = [total, ...(run.groups.length === 0 ? [] : [table])];
    if (panel.days.length > 1) {
      const most = Math.max(...panel.days.map((d) => d.spent), 1e-9);
      const bars = panel.days.map((d) => {
        const bar = el("span", { class: "day-bar" });
        bar.style.height = `${((d.spent / most) * 100).toFixed(1)}%`;
        return el(
          "div",
          { class: "day", dataset: { day: d.key }, title: `${d.key}: spent ${money(d.spent)}` },
          bar,
          el("span", { class: "day-label" }, d.key.slice(5)),
        );
      });
      parts.push(
        el("h3", {}, "Every run, by day"),
        el("div", { id: "cost-days", class: "days" }, ...bars),
      );
    }
    cost.replaceChildren(...parts);
  }

  // The timeline a page at a time, ordered and filtered by the server over all of the run's tasks.
  let timelinePage = 1;
  async function loadTimeline(page = timelinePage) {
    timelinePage = page;
    const query = new URLSearchParams({ page: String(page), order: order.value });
    if (failedOnly.checked) query.set("undone", "1");
    const response = await fetch(`/api/runs/${id}/timeline?${query}`);
    drawTimeline(await response.json());
  }

  const FAILED = ["failed", "rejected", "expired", "skipped", "held"];
  const endOf = (t) => t.done_at ?? t.downloaded_at ?? t.completed_at ?? t.updated_at;
  function drawTimeline({ page, start, end, tasks }) {
    const span = Math.max(1, end - start);
    const pct = (ms) => `${(((ms - start) / span) * 100).toFixed(3)}%`;
    const rows = tasks.map((t) => {
      const marks = [t.queued_at, t.submitted_at, t.completed_at, t.downloaded_at, endOf(t)];
      const phases = ["queued", "submitted", "completed", "downloaded"];
      const bar = el("div", { class: "bar" });
      phases.forEach((phase, i) => {
        const from = marks[i];
        const to = marks.slice(i + 1).find((m) => m !== null && m !== undefined);
        if (from === null || from === undefined || to === undefined) return;
        const seg = el("span", { class: `seg ${phase}`, title: `${phase} ${duration(to - from)}` });
        seg.style.left = pct(from);
        seg.style.width = `max(2px, ${(((to - from) / span) * 100).toFixed(3)}%)`;
        bar.append(seg);
      });
      const failed = FAILED.includes(t.state);
      return el(
        "div",
        {
          class: `row${failed ? " failed" : ""}`,
          dataset: { key: t.key, state: t.state },
          title: `${t.label}: ${t.state}, ${duration(endOf(t) - t.queued_at)}${t.reason ? ` — ${t.reason}` : ""}`,
        },
        el("span", { class: "name" }, t.label),
        bar,
        el("span", { class: "took" }, duration(endOf(t) - t.queued_at)),
      );
    });
    timelinePages.replaceChildren(pageLinks(page, "tasks", null, (n) => loadTimeline(n)));
    timeline.replaceChildren(...rows);
  }

  if (first.run.finished) {
    finish(first);
    return;
  }
  draw(first);
  void loadTimeline();
  void loadCost();
  const events = new EventSource(`/api/runs/${id}/events`);
  let lastTimeline = 0;
  events.addEventListener("progress", (event) => {
    draw(JSON.parse(event.data));
    // The timeline is redrawn now and then, not at every count.
    if (Date.now() - lastTimeline > 3000) {
      lastTimeline = Date.now();
      void loadTimeline();
    }
  });
  events.addEventListener("summary", (event) => {
    events.close();
    finish(JSON.parse(event.data));
  });
})();
