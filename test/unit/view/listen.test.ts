import { describe, expect, it } from "vitest";
import { hostsAnswered, isLoopback, parseListen } from "../../../src/view/listen.js";

describe("where a viewer listens", () => {
  it("reads ADDR:PORT, IPv6 in brackets, and nothing else", () => {
    expect(parseListen("0.0.0.0:8080")).toEqual({ host: "0.0.0.0", port: 8080 });
    expect(parseListen("[::1]:9000")).toEqual({ host: "::1", port: 9000 });
    expect(parseListen("localhost:0")).toEqual({ host: "localhost", port: 0 });
    for (const bad of ["8080", "0.0.0.0", "a:b", "0.0.0.0:70000", "[nope]:80", "::1:80"])
      expect(parseListen(bad), bad).toBeUndefined();
  });

  it("knows loopback from the network", () => {
    expect(["127.0.0.1", "127.1.2.3", "::1", "localhost"].every(isLoopback)).toBe(true);
    expect(["0.0.0.0", "::", "10.0.0.1", "192.168.1.2"].some(isLoopback)).toBe(false);
  });

  it("answers loopback's names, the address listened on and each proxied name", () => {
    expect([...hostsAnswered("0.0.0.0", 8080, ["Review.example.com"])]).toEqual([
      "127.0.0.1:8080",
      "localhost:8080",
      "review.example.com",
      "review.example.com:8080",
    ]);
    expect(hostsAnswered("10.0.0.5", 81, []).has("10.0.0.5:81")).toBe(true);
  });
});
