// The runs page: newest first, with state, counts, spend and duration.
(() => {
  const { el, data, duration, time, main } = window.gw;
  const runs = data();
  if (runs.length === 0) {
    main.append(el("p", {}, "No runs yet."));
    return;
  }
  const counts = (states) =>
    Object.entries(states)
      .map(([state, n]) => `${n} ${state}`)
      .join(", ");
  main.append(
    el(
      "table",
      { class: "runs" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          ["run", "name", "state", "started", "duration", "tasks", "outputs", "paid", ""].map(
            (title) => el("th", {}, title),
          ),
        ),
      ),
      el(
        "tbody",
        {},
        runs.map((run) =>
          el(
            "tr",
            { dataset: { run: run.id } },
            el("td", {}, el("a", { href: `/runs/${run.id}` }, String(run.id))),
            el("td", {}, run.name),
            el("td", { class: `status ${run.status}` }, run.status),
            el("td", {}, time(run.started_at)),
            el("td", {}, duration(run.duration)),
            el("td", { title: counts(run.states) }, `${run.tasks} (${counts(run.states)})`),
            el("td", {}, String(run.outputs)),
            el("td", {}, String(run.spent)),
            el("td", {}, el("a", { href: `/runs/${run.id}/outputs` }, "outputs")),
          ),
        ),
      ),
    ),
  );
})();
