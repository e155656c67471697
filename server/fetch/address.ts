/**
 * Which addresses a fetch may connect to. A URL list or a sitemap is input from outside: without this check a crafted
 * URL (or a host name that resolves to 10.0.0.5) makes the service probe its own network. Checked on every address a
 * connection is actually made to (http.ts passes a `lookup` that filters them), so a name that resolves differently
 * the second time gains nothing. FETCH_ALLOW_PRIVATE=true lifts the check (tests serve pages on loopback).
 */
import { BlockList, isIP } from "node:net";

/** Why an address is refused, by kind, with the ranges of each (IANA special-purpose registries). */
const RANGES: [kind: string, family: "ipv4" | "ipv6", network: string, prefix: number][] = [
  ["loopback", "ipv4", "127.0.0.0", 8],
  ["loopback", "ipv6", "::1", 128],
  ["unspecified", "ipv4", "0.0.0.0", 8],
  ["unspecified", "ipv6", "::", 128],
  ["private", "ipv4", "10.0.0.0", 8],
  ["private", "ipv4", "172.16.0.0", 12],
  ["private", "ipv4", "192.168.0.0", 16],
  ["private", "ipv4", "100.64.0.0", 10],
  ["private", "ipv4", "192.0.0.0", 24],
  ["private", "ipv4", "198.18.0.0", 15],
  ["private", "ipv6", "fc00::", 7],
  ["link-local", "ipv4", "169.254.0.0", 16],
  ["link-local", "ipv6", "fe80::", 10],
  ["multicast or reserved", "ipv4", "224.0.0.0", 3],
  ["multicast or reserved", "ipv6", "ff00::", 8],
];

const LISTS = new Map<string, BlockList>();
for (const [kind, family, network, prefix] of RANGES) {
  const list = LISTS.get(kind) ?? new BlockList();
  list.addSubnet(network, prefix, family);
  LISTS.set(kind, list);
}

/** The IPv4 address an IPv6 one carries (IPv4-mapped `::ffff:a.b.c.d`, or NAT64 `64:ff9b::/96`), if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = Number.parseInt(hex[1]!, 16);
  const low = Number.parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** Why a fetch may not connect to this IP address (`loopback`, `private`, …), or undefined when it may. */
export function refusedKind(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family === 0) return "not an IP address";
  const v4 = family === 6 ? embeddedIpv4(bare) : bare;
  const [checked, type] = v4 ? [v4, "ipv4" as const] : [bare, "ipv6" as const];
  for (const [kind, list] of LISTS) if (list.check(checked, type)) return kind;
  return undefined;
}

/** The refusal's words, naming the setting that lifts it. */
export function refusal(host: string, address: string, kind: string): string {
  const resolved = host.replace(/^\[|\]$/g, "") === address ? address : `${host} (${address})`;
  return `${resolved} is ${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind} address; fetching it is refused unless FETCH_ALLOW_PRIVATE=true`;
}
