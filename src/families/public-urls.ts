import { BlockList, isIP } from "node:net";

/**
 * The contract takes image and video inputs as "publicly reachable" URLs: the gateway fetches
 * them from the internet. A URL whose host can only be reached from inside a network (a
 * loopback, private, link-local, unique-local or CGNAT address, localhost, a `.local` or
 * `.internal` name) is refused before anything is paid for. Names are judged as written and
 * never resolved: what a public name points at is the gateway's to find out.
 */

/** The rule a private host breaks; `gateway.private_urls: true` lifts it. */
export const PUBLIC_URL_RULE = "public-url";

interface AddressClass {
  name: string;
  list: BlockList;
}

function addressClass(name: string, subnets: readonly [string, number, "ipv4" | "ipv6"][]) {
  const list = new BlockList();
  for (const [network, prefix, type] of subnets) list.addSubnet(network, prefix, type);
  return { name, list };
}

const ADDRESS_CLASSES: readonly AddressClass[] = [
  addressClass("a loopback address", [
    ["127.0.0.0", 8, "ipv4"],
    ["::1", 128, "ipv6"],
  ]),
  addressClass("a private address (RFC 1918)", [
    ["10.0.0.0", 8, "ipv4"],
    ["172.16.0.0", 12, "ipv4"],
    ["192.168.0.0", 16, "ipv4"],
  ]),
  addressClass("a link-local address", [
    ["169.254.0.0", 16, "ipv4"],
    ["fe80::", 10, "ipv6"],
  ]),
  addressClass("a unique-local address", [["fc00::", 7, "ipv6"]]),
  addressClass("a CGNAT address (100.64.0.0/10)", [["100.64.0.0", 10, "ipv4"]]),
  addressClass("an unspecified address", [
    ["0.0.0.0", 8, "ipv4"],
    ["::", 128, "ipv6"],
  ]),
];

const PRIVATE_NAME_ENDINGS = [".localhost", ".local", ".internal"];

/** The IPv4 address inside an IPv4-mapped IPv6 one (`::ffff:7f00:1` → `127.0.0.1`). */
function mappedIpv4(address: string): string | undefined {
  const match = /^::ffff:(?:([0-9a-f]{1,4}):([0-9a-f]{1,4})|(\d+\.\d+\.\d+\.\d+))$/i.exec(address);
  if (match === null) return undefined;
  if (match[3] !== undefined) return match[3];
  const high = Number.parseInt(match[1] as string, 16);
  const low = Number.parseInt(match[2] as string, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** What makes a host private ("a loopback address", "localhost"…), or undefined when it may be public. */
export function privateHostKind(host: string): string | undefined {
  const bare = host
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  const type = isIP(bare);
  if (type === 0) {
    if (bare === "localhost") return "localhost";
    const ending = PRIVATE_NAME_ENDINGS.find((suffix) => bare.endsWith(suffix));
    return ending === undefined ? undefined : `a ${ending} name`;
  }
  const mapped = type === 6 ? mappedIpv4(bare) : undefined;
  const address = mapped ?? bare;
  const family = mapped !== undefined || type === 4 ? "ipv4" : "ipv6";
  const found = ADDRESS_CLASSES.find(({ list }) => list.check(address, family));
  if (found === undefined) return undefined;
  return mapped === undefined ? found.name : `${found.name} (IPv4-mapped)`;
}

/**
 * Why the gateway could never fetch `url`, or undefined. The URL parser normalises its host
 * first, so `http://2130706433/` and `http://[::ffff:127.0.0.1]/` are seen as the loopback
 * they are.
 */
export function privateUrlProblem(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined;
  }
  const kind = privateHostKind(host);
  if (kind === undefined) return undefined;
  return `${url}: its host is ${kind}, which the gateway cannot reach; the contract asks for a publicly reachable URL (for a gateway inside the same private network, set gateway.private_urls: true)`;
}
