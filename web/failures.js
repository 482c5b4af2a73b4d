// A run's failures with their reasons, a page at a time.
(() => {
  const { el, data, failureItem, pageLinks, main } = window.gw;
  const { run, failures, page } = data();
  const pages = () => pageLinks(page, "failures", (n) => `/runs/${run.id}/failures?page=${n}`);
  main.append(
    el("p", {}, el("a", { href: `/runs/${run.id}` }, "← progress and timeline")),
    pages(),
    el(
      "ul",
      { id: "failures", class: "failures" },
      failures.length === 0 ? el("li", {}, "none") : failures.map(failureItem),
    ),
    page.pages > 1 ? pages() : null,
  );
})();
