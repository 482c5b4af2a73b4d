import { isIP } from "node:net";

/** Where a viewer listens (`--listen ADDR:PORT`), and which of those places are loopback. */

export interface ListenAddress {
  host: string;
  /** 0: any free one. */
  port: number;
}

/** `ADDR:PORT` (`[::1]:8080` for IPv6); undefined when it is not one. */
export function parseListen(text: string): ListenAddress | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(text.trim());
  if (match === null) return undefined;
  const host = match[1] ?? match[2] ?? "";
  const port = Number(match[3]);
  if (port > 65535 || (match[1] !== undefined && isIP(host) !== 6)) return undefined;
  return { host, port };
}

/** Whether only this machine reaches `host`: 127.0.0.0/8, ::1 or localhost. */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase();
  return name === "localhost" || name === "::1" || /^127(\.\d{1,3}){3}$/.test(name);
}

/** Whether `host` is every address of the machine (0.0.0.0, ::). */
export function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::";
}

/** `host:port` as a URL and a Host header write it (IPv6 in brackets). */
export function hostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/**
 * The Host headers a viewer answers, lowercase: loopback's, the address it listens on, and
 * each name a proxy forwards (`--host`), as given and with the port listened on.
 */
export function hostsAnswered(listen: string, port: number, names: readonly string[]): Set<string> {
  const hosts = [hostPort("127.0.0.1", port), hostPort("localhost", port)];
  if (!isWildcard(listen)) hosts.push(hostPort(listen, port));
  for (const name of names) {
    hosts.push(name);
    // A name with no port of its own: a proxy on 443 or 80 forwards it bare.
    if (!/:\d+$/.test(name)) hosts.push(hostPort(name, port));
  }
  return new Set(hosts.map((host) => host.toLowerCase()));
}
