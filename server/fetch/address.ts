/**
 * Which addresses a fetch may connect to. A URL list or a sitemap is input from outside: without this check a crafted
 * URL (or a host name that resolves to 10.0.0.5) makes the service probe its own network. Checked on every address a
 * connection is actually made to (http.ts passes a `lookup` that filters them), so a name that resolves differently
 * the second time (DNS rebinding) gains nothing: the address checked is the address connected to.
 *
 * Refused: the IANA special-purpose ranges (loopback, private, link-local, documentation, multicast, reserved), IPv6
 * forms that carry an IPv4 address (IPv4-mapped, NAT64, 6to4: the IPv4 one is checked) or reach one by a tunnel we
 * cannot see into (Teredo, IPv4-compatible, local-use NAT64), and this machine's own addresses on any interface.
 * FETCH_ALLOW_PRIVATE=true lifts the loopback refusal only (tests, a shop on this machine); FETCH_ALLOW_NETWORKS
 * lists the networks (CIDRs) of the operator's own shops. What it cannot do (a public address of the operator's
 * own, a proxy) is an egress firewall's job: docs/operations.md.
 */
import { BlockList, isIP } from "node:net";
import { networkInterfaces } from "node:os";

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
  // Local-use NAT64 (RFC 8215): translates to whatever IPv4 network the operator's translator serves.
  ["private", "ipv6", "64:ff9b:1::", 48],
  ["link-local", "ipv4", "169.254.0.0", 16],
  ["link-local", "ipv6", "fe80::", 10],
  ["documentation", "ipv4", "192.0.2.0", 24],
  ["documentation", "ipv4", "198.51.100.0", 24],
  ["documentation", "ipv4", "203.0.113.0", 24],
  ["documentation", "ipv6", "2001:db8::", 32],
  ["multicast or reserved", "ipv4", "224.0.0.0", 3],
  ["multicast or reserved", "ipv6", "ff00::", 8],
  // IPv4-compatible (deprecated), discard-only, site-local (deprecated), benchmarking.
  ["multicast or reserved", "ipv6", "::", 96],
  ["multicast or reserved", "ipv6", "100::", 64],
  ["multicast or reserved", "ipv6", "fec0::", 10],
  ["multicast or reserved", "ipv6", "2001:2::", 48],
  // Teredo: an IPv4 server and client hidden (obfuscated) in the address; nothing a shop is served on.
  ["tunnelled (Teredo)", "ipv6", "2001::", 32],
];

const LISTS = new Map<string, BlockList>();
for (const [kind, family, network, prefix] of RANGES) {
  const list = LISTS.get(kind) ?? new BlockList();
  list.addSubnet(network, prefix, family);
  LISTS.set(kind, list);
}

/** An IPv6 address as its eight 16-bit words (`::` expanded, a dotted IPv4 tail read as two words). */
function ipv6Words(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, "");
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const words = (part: string) => (part === "" ? [] : part.split(":").map((word) => Number.parseInt(word, 16)));
  const front = words(head);
  const back = tail === undefined ? [] : words(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const dottedQuad = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255].join(".");

/** The IPv4 address an IPv6 one carries: IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`. */
function embeddedIpv4(address: string): string | undefined {
  const w = ipv6Words(address);
  const zeros = (from: number, to: number) => w.slice(from, to).every((word) => word === 0);
  if (zeros(0, 5) && w[5] === 0xffff) return dottedQuad(w[6]!, w[7]!);
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6)) return dottedQuad(w[6]!, w[7]!);
  if (w[0] === 0x2002) return dottedQuad(w[1]!, w[2]!);
  return undefined;
}

/** This machine's addresses on its interfaces other than loopback (those are refused as loopback already). */
export function ownAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => !entry.internal)
    .map((entry) => entry.address);
}

/** The same address whatever its spelling (`::FFFF:1.2.3.4`, `fe80::1%eth0`): for comparing with `ownAddresses`. */
function sameAddress(a: string, b: string): boolean {
  if (isIP(a) !== isIP(b)) return false;
  if (isIP(a) === 4) return a === b;
  return ipv6Words(a).join(":") === ipv6Words(b).join(":");
}

/**
 * Why a fetch may not connect to this IP address (`loopback`, `private`, …), or undefined when it may. `own`: this
 * machine's addresses (read from its interfaces at each call, since they change; a test passes its own).
 */
export function refusedKind(address: string, own: readonly string[] = ownAddresses()): string | undefined {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family === 0) return "not an IP address";
  const v4 = family === 6 ? embeddedIpv4(bare) : bare;
  // 6to4 and the like: the IPv4 address carried decides, and the IPv6 one is checked too.
  const checks: [string, "ipv4" | "ipv6"][] = v4 ? [[v4, "ipv4"]] : [];
  if (family === 6) checks.push([bare, "ipv6"]);
  for (const [checked, type] of checks) for (const [kind, list] of LISTS) if (list.check(checked, type)) return kind;
  if (own.some((mine) => sameAddress(mine, bare) || (v4 !== undefined && mine === v4))) return "this machine's own";
  return undefined;
}

/** A network as FETCH_ALLOW_NETWORKS takes it (`10.20.0.0/16`, `fd12:3456::/48`), or null when it is none. */
export function parseNetwork(text: string): { network: string; prefix: number; family: "ipv4" | "ipv6" } | null {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(text.trim());
  if (!match) return null;
  const family = isIP(match[1]!);
  const prefix = Number(match[2]);
  if (family === 0 || prefix > (family === 4 ? 32 : 128)) return null;
  return { network: match[1]!, prefix, family: family === 4 ? "ipv4" : "ipv6" };
}

export interface AddressPolicy {
  /** FETCH_ALLOW_PRIVATE: loopback addresses (and only those) may be connected to. */
  allowLoopback: boolean;
  /** FETCH_ALLOW_NETWORKS: networks that may be connected to whatever they are. */
  allowNetworks?: readonly string[];
}

/** Why the policy refuses an address (its kind), or undefined when a fetch may connect to it. */
export function addressGuard(policy: AddressPolicy): (address: string) => string | undefined {
  const allowed = new BlockList();
  for (const text of policy.allowNetworks ?? []) {
    const network = parseNetwork(text);
    if (network) allowed.addSubnet(network.network, network.prefix, network.family);
  }
  return (address) => {
    const bare = address.replace(/^\[|\]$/g, "");
    const family = isIP(bare);
    if (family !== 0 && allowed.check(bare, family === 4 ? "ipv4" : "ipv6")) return undefined;
    const kind = refusedKind(bare);
    return kind === "loopback" && policy.allowLoopback ? undefined : kind;
  };
}

/** The refusal's words, naming the setting that lifts it. */
export function refusal(host: string, address: string, kind: string): string {
  const resolved = host.replace(/^\[|\]$/g, "") === address ? address : `${host} (${address})`;
  const what = kind.startsWith("this ") ? `${kind} address` : `${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind} address`;
  const unless = kind === "loopback" ? "FETCH_ALLOW_PRIVATE=true" : "FETCH_ALLOW_NETWORKS includes it";
  return `${resolved} is ${what}; fetching it is refused unless ${unless}`;
}
