import { setTimeout as wait } from "node:timers/promises";
import { beforeEach } from "vitest";
import { openStores, type StoreKind } from "../src/store/open-stores.js";

/**
 * Set up before each test file of every project: a test that leaves open what it opened — a
 * child process, a listening server (the simulator, the viewer, a proxy), a socket, a file
 * watcher, or a store (SQLite, or a PostgreSQL pool) — fails, naming what it left. What was
 * open before the test (a file's `beforeAll` server, say) is not its to close. The check runs
 * after the test's own `afterEach` hooks and `onTestFinished` callbacks, once what they close
 * has had a moment to go (a closed socket's handle goes on the next turns of the loop).
 */

/** Handles that outlive a test only when it forgot them (timers are left to fake clocks). */
const WATCHED: Readonly<Record<string, string>> = {
  ProcessWrap: "child process",
  PipeWrap: "pipe (a child's stdio, or a socket file)",
  PipeServerWrap: "listening socket file",
  TCPServerWrap: "listening server",
  TCPSocketWrap: "socket",
  UDPWrap: "UDP socket",
  FSEventWrap: "file watcher",
  StatWatcher: "file watcher",
};

/** How long what a test closed may take to go before the check fails it. */
export const SETTLE_MS = 1_000;

type Census = Map<string, number>;

function census(): Census {
  const counts: Census = new Map();
  for (const type of process.getActiveResourcesInfo())
    if (type in WATCHED) counts.set(type, (counts.get(type) ?? 0) + 1);
  for (const [kind, open] of Object.entries(openStores()) as [StoreKind, number][])
    if (open > 0) counts.set(`${kind} store`, open);
  return counts;
}

/** What is open now beyond `before`, as readable lines; empty when nothing is. */
function leftOpen(before: Census): string[] {
  const lines: string[] = [];
  for (const [type, count] of census()) {
    const more = count - (before.get(type) ?? 0);
    const what = type in WATCHED ? `${WATCHED[type]} (${type})` : type;
    if (more > 0) lines.push(`${more} × ${what}`);
  }
  return lines;
}

beforeEach((context) => {
  const before = census();
  // Registered first, so it runs after every `onTestFinished` of the test (they run last first).
  context.onTestFinished(async () => {
    const deadline = Date.now() + SETTLE_MS;
    let lines = leftOpen(before);
    while (lines.length > 0 && Date.now() < deadline) {
      await wait(20);
      lines = leftOpen(before);
    }
    if (lines.length > 0)
      throw new Error(
        `this test left open: ${lines.join(", ")}; close what it opens (in the test, afterEach or onTestFinished)`,
      );
  });
});
