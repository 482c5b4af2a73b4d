import { describe, expect, it } from "vitest";
import { imageA } from "../../../src/families/image-a.js";
import { validateRequest } from "../../../src/families/index.js";
import { privateHostKind, privateUrlProblem } from "../../../src/families/public-urls.js";
import { video10 } from "../../../src/families/video-10.js";
import { checkInline } from "../../helpers/manifest.js";

describe("URLs the gateway could never fetch", () => {
  it.each([
    ["http://localhost:8080/img/a.png", "localhost"],
    ["http://LOCALHOST./a.png", "localhost"],
    ["http://127.0.0.1/a.png", "a loopback address"],
    ["http://127.255.1.2/a.png", "a loopback address"],
    ["http://2130706433/a.png", "a loopback address"],
    ["http://[::1]/a.png", "a loopback address"],
    ["http://10.1.2.3/a.png", "a private address (RFC 1918)"],
    ["http://172.16.0.9/a.png", "a private address (RFC 1918)"],
    ["http://172.31.255.1/a.png", "a private address (RFC 1918)"],
    ["https://192.168.1.20/a.png", "a private address (RFC 1918)"],
    ["http://169.254.169.254/latest", "a link-local address"],
    ["http://[fe80::1]/a.png", "a link-local address"],
    ["http://[fd12:3456::1]/a.png", "a unique-local address"],
    ["http://[fc00::1]/a.png", "a unique-local address"],
    ["http://100.64.0.1/a.png", "a CGNAT address (100.64.0.0/10)"],
    ["http://100.127.255.254/a.png", "a CGNAT address (100.64.0.0/10)"],
    ["http://0.0.0.0/a.png", "an unspecified address"],
    ["http://[::ffff:127.0.0.1]/a.png", "a loopback address (IPv4-mapped)"],
    ["http://[::ffff:192.168.0.1]/a.png", "a private address (RFC 1918) (IPv4-mapped)"],
    ["http://printer.local/a.png", "a .local name"],
    ["http://assets.corp.internal/a.png", "a .internal name"],
    ["http://app.localhost/a.png", "a .localhost name"],
  ])("%s is refused: its host is %s", (url, kind) => {
    expect(privateHostKind(new URL(url).hostname)).toBe(kind);
    expect(privateUrlProblem(url)).toBe(
      `${url}: its host is ${kind}, which the gateway cannot reach; the contract asks for a publicly reachable URL (for a gateway inside the same private network, set gateway.private_urls: true)`,
    );
  });

  it.each([
    "https://cdn.example.com/a.png",
    "http://8.8.8.8/a.png",
    "http://172.32.0.1/a.png",
    "http://100.128.0.1/a.png",
    "http://[2001:4860::8888]/a.png",
    "http://[::ffff:8.8.8.8]/a.png",
    "https://localhost.example.com/a.png",
    "https://images.internal-cdn.com/a.png",
  ])("%s may be public: it is sent (names are not resolved)", (url) => {
    expect(privateUrlProblem(url)).toBeUndefined();
  });

  it("family A's image_urls and video family 10's refuse them, naming the rule", () => {
    const a = validateRequest(imageA, {
      model: "acme-image-2",
      prompt: "a mug",
      image_urls: ["https://cdn.example.com/a.png", "http://localhost:8080/img/a.png"],
    });
    expect(a).toEqual([expect.objectContaining({ path: ["image_urls", 1], rule: "public-url" })]);
    const ten = validateRequest(video10, {
      model: "acmeq3",
      prompt: "the mug turns",
      image_urls: ["https://192.168.1.20/a.png"],
    });
    expect(ten).toEqual([expect.objectContaining({ path: ["image_urls", 0], rule: "public-url" })]);
  });

  it("a video URL on a private address is refused too", async () => {
    const checked = await checkInline(`version: 1
jobs:
  - id: restyle
    model: acme2.7-videoedit
    video_urls: ["http://10.0.0.5/clip.mp4"]
`);
    expect(checked.diagnostics.map((d) => `${d.line}:${d.col} ${d.rule}`)).toEqual([
      "5:18 public-url",
    ]);
  });

  it("gateway.private_urls: true sends them, with a warning at that line", async () => {
    const checked = await checkInline(`version: 1
gateway:
  base_url: https://gw.corp.internal
  private_urls: true
jobs:
  - { id: edit, model: acme-image-2, prompt: a mug, image_urls: ["http://localhost:8080/img/a.png"] }
`);
    expect(checked.diagnostics.map((d) => `${d.line}:${d.col} ${d.severity} ${d.rule}`)).toEqual([
      "4:17 warning private-urls",
    ]);
    expect(checked.jobs).toHaveLength(1);
  });
});
