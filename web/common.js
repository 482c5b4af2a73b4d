// Shared by the viewer's pages: the page's inline data, element building, the token, formats.
window.gw = (() => {
  // The token comes once in the URL printed by `gwrun view`; the tab keeps it.
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

  async function post(url, body) {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gwrun-token": sessionStorage.getItem("gwrun-token") ?? "",
      },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
    return response.json();
  }

  function duration(ms) {
    if (ms === null || ms === undefined) return "–";
    const s = Math.round(ms / 1000);
    if (s < 60) return `${s}s`;
    const m = Math.floor(s / 60);
    if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
    return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
  }

  function time(ms) {
    return ms === null || ms === undefined ? "–" : new Date(ms).toLocaleString();
  }

  /** A variable's value as text. */
  function text(value) {
    return typeof value === "string" ? value : JSON.stringify(value);
  }

  return { el, data, post, duration, time, text, main: document.getElementById("main") };
})();
