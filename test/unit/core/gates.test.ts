import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../helpers/root.js";

/**
 * The four gates at the project's edge are the only ways through it: a file is read only by
 * the file gate (`core/file-gate.ts`, which reads through `core/bounded-read.ts`), and the network is reached only by the modules that
 * take their bounds from the timeout policy (`core/timeouts.ts`). A new module that reads a
 * file or opens a connection another way fails here, by name.
 */

function sources(dir = path.join(ROOT, "src")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

const FILES = sources().map((file) => ({
  name: path.relative(path.join(ROOT, "src"), file).split(path.sep).join("/"),
  text: readFileSync(file, "utf8"),
}));

/** The names a file imports from a module. */
function importsFrom(text: string, module: string): string[] {
  const found: string[] = [];
  const escaped = module.replace(/[/.]/g, "\\$&");
  const pattern = new RegExp(`import\\s+(?:type\\s+)?\\{([^}]*)\\}\\s+from\\s+"${escaped}"`, "g");
  for (const match of text.matchAll(pattern))
    for (const name of (match[1] ?? "").split(","))
      if (!name.trim().startsWith("type ") && name.trim() !== "")
        found.push(name.trim().split(/\s+as\s+/)[0] as string);
  return found;
}

/** What reads a file's bytes, in node:fs and node:fs/promises. */
const READS = new Set([
  "readFile",
  "readFileSync",
  "createReadStream",
  "read",
  "readSync",
  "readv",
  "readvSync",
  "open",
]);

/** The file gate: where files are allowed, and how an allowed one is read. */
const GATE = ["core/file-gate.ts", "core/bounded-read.ts"];

describe("the gates at the project's edge", () => {
  it("reads every file through the file gate", () => {
    const outside = FILES.filter(({ name }) => !GATE.includes(name)).flatMap(({ name, text }) => {
      const named = [...importsFrom(text, "node:fs"), ...importsFrom(text, "node:fs/promises")];
      const reads = named.filter((imported) => READS.has(imported));
      // `openSync` opens for reading too, unless it asks to write.
      const opens = [...text.matchAll(/\bopenSync\(([^)]*)\)/g)].filter(
        (call) => !/,\s*"w/.test(call[1] ?? ""),
      );
      // The gate's reading half is the gate's own.
      const bounded = /from "(\.\.?\/)+(core\/)?bounded-read\.js"/.test(text);
      return [
        ...reads.map((read) => `${name}: ${read}`),
        ...(bounded ? [`${name}: bounded-read.ts`] : []),
        ...(opens.length > 0 ? [`${name}: openSync to read`] : []),
        ...(/\bfs\.(read|open|createReadStream)/.test(text) ? [`${name}: fs.*`] : []),
      ];
    });
    expect(outside).toEqual([]);
  });

  it("reaches the network only from modules bounded by the timeout policy", () => {
    // undici is imported, or loaded on the first request through gateway/undici.ts, the one
    // module that loads it so.
    const loaders = FILES.filter(({ text }) => /\bimport\(\s*"undici"\s*\)/.test(text));
    expect(loaders.map(({ name }) => name)).toEqual(["gateway/undici.ts"]);
    const reaching = FILES.filter(
      ({ text }) =>
        importsFrom(text, "undici").length > 0 ||
        importsFrom(text, "./undici.js").includes("undici") ||
        /from "@aws-sdk\//.test(text) ||
        /(?<![.\w])fetch\(/.test(text),
    ).map(({ name }) => name);
    expect(reaching.sort()).toEqual([
      "gateway/client.ts",
      "gateway/download.ts",
      "gateway/proxy.ts",
      "gateway/rows-fetch.ts",
      "gateway/webhook.ts",
      "publish/object-storage.ts",
      "publish/read-objects.ts",
      "publish/upload.ts",
    ]);
    // Each takes its bounds from the policy: itself, or through the one dispatcher or storage
    // client the policy configures (every request given that dispatcher).
    const bounded = (name: string) => {
      const text = FILES.find((file) => file.name === name)?.text ?? "";
      const requests = [...text.matchAll(/\brequest\(([^;]*)/g)];
      return (
        text.includes('from "../core/timeouts.js"') ||
        importsFrom(text, "./proxy.js").includes("outboundDispatcher") ||
        importsFrom(text, "./object-storage.js").includes("requestOf") ||
        (requests.length > 0 && requests.every((call) => (call[1] ?? "").includes("dispatcher")))
      );
    };
    expect(reaching.filter((name) => !bounded(name))).toEqual([]);
  });

  it("names each gate in docs/architecture.md and states its promise in docs/security.md", () => {
    const architecture = readFileSync(path.join(ROOT, "docs/architecture.md"), "utf8");
    const security = readFileSync(path.join(ROOT, "docs/security.md"), "utf8");
    for (const module of [
      "core/file-gate.ts",
      "core/secret-registry.ts",
      "core/text-filter.ts",
      "core/timeouts.ts",
    ]) {
      expect(architecture).toContain(module);
      expect(security).toContain(module);
    }
  });
});
