// Shared by the viewer's pages: the page's inline data, element building, the token, formats.
window.gw = (() => {
  // The token comes once in the URL printed by `gwrun view` (or a shared one's invite link); the
  // tab keeps it.
  const params = new URLSearchParams(location.search);
  if (params.has("token")) {
    sessionStorage.setItem("gwrun-token", params.get("token"));
    params.delete("token");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + (rest === "" ? "" : `?${rest}`));
  }

  /** An element with attributes and children (strings become text, never markup). */
  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else if (name === "dataset") Object.assign(node.dataset, value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
    }
    return node;
  }

  function data() {
    return JSON.parse(document.getElementById("data").textContent);
  }

  /**
   * The token: kept by the tab from the URL `gwrun view` printed; a page opened without it
   * (`gwrun view --open` keeps it off the browser's command line) asks for it once. Null when
   * the person declines.
   */
  function token(refused) {
    const kept = sessionStorage.getItem("gwrun-token");
    if (kept !== null && !refused) return kept;
    const asked = prompt(
      `${refused ? "That token was refused. " : ""}Changes need the URL gwrun view printed (or the token in it): paste it here.`,
    );
    if (asked === null || asked.trim() === "") return null;
    let given = asked.trim();
    try {
      given = new URL(given).searchParams.get("token") ?? given;
    } catch {
      // Not a URL: the token itself.
    }
    sessionStorage.setItem("gwrun-token", given);
    return given;
  }

  /**
   * A recorded file's address. With the token the tab keeps, a file not on this host may be
   * read back from object storage; without it, only files on disk are shown.
   */
  function file(path) {
    const kept = sessionStorage.getItem("gwrun-token");
    return kept === null ? path : `${path}?token=${encodeURIComponent(kept)}`;
  }

  async function post(url, body) {
    for (let refused = false; ; refused = true) {
      const given = token(refused);
      if (given === null) throw new Error("no token given: the change was not made");
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-gwrun-token": given },
        body: JSON.stringify(body),
      });
      if (response.status === 403 || response.status === 401) continue;
      if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
      return response.json();
    }
  }

  function duration(ms) {
    if (ms === null || ms === undefined) return "–";
    const s = Math.round(ms / 1000);
    if (s < 60) return `${s}s`;
    const m = Math.floor(s / 60);
    if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
    return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
  }

  /** A decision as shown: "approved", or "approved by anna" when a reviewer or agent made it. */
  function decided(review, by) {
    if (review === null || review === undefined) return "";
    return by === null || by === undefined ? review : `${review} by ${by}`;
  }

  function time(ms) {
    return ms === null || ms === undefined ? "–" : new Date(ms).toLocaleString();
  }

  /** A variable's value as text. */
  function text(value) {
    return typeof value === "string" ? value : JSON.stringify(value);
  }

  /**
   * "items 1001–2000 of 300000" and links to the first, previous, next and last pages of a
   * long list; `hrefOf(n)` is page n's address, or a button's action with `onPage`.
   */
  function pageLinks(page, noun, hrefOf, onPage) {
    const from = page.total === 0 ? 0 : (page.number - 1) * page.size + 1;
    const to = Math.min(page.total, page.number * page.size);
    const link = (n, label, rel) => {
      if (n < 1 || n > page.pages || n === page.number) return el("span", { class: "off" }, label);
      return onPage === undefined
        ? el("a", { href: hrefOf(n), rel, dataset: { page: n } }, label)
        : el("button", { type: "button", dataset: { page: n }, onclick: () => onPage(n) }, label);
    };
    return el(
      "p",
      { class: "pages", dataset: { page: page.number, pages: page.pages } },
      `${noun} ${from}–${to} of ${page.total}`,
      page.pages > 1
        ? [
            ` · page ${page.number} of ${page.pages} · `,
            link(1, "first", "first"),
            " ",
            link(page.number - 1, "← previous", "prev"),
            " ",
            link(page.number + 1, "next →", "next"),
            " ",
            link(page.pages, "last", "last"),
          ]
        : [],
    );
  }

  /** One failure of a list: its label, its state and its reason. */
  function failureItem(failure) {
    return el(
      "li",
      {},
      el("b", {}, failure.label),
      " ",
      el("span", { class: "badge failed" }, failure.state),
      ` ${failure.reason ?? "no reason recorded"}`,
    );
  }

  return {
    el,
    data,
    decided,
    failureItem,
    file,
    post,
    duration,
    time,
    text,
    pageLinks,
    main: document.getElementById("main"),
  };
})();
