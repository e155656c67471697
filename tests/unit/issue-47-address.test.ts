/**
 * Issue 47, the SSRF guard's gaps: the documentation ranges, 6to4 (its IPv4 address checked), local-use NAT64,
 * IPv4-compatible `::/96` and this machine's own addresses were connected to; and FETCH_ALLOW_PRIVATE=true lifted
 * every refusal, where tests and a shop on this machine need loopback only (other networks: FETCH_ALLOW_NETWORKS).
 * Addresses here are strings only: nothing is connected to.
 */
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";
import { addressGuard, ownAddresses, refusal, refusedKind } from "../../server/fetch/address.js";

/** No address of this machine's: the ranges alone decide. */
const NONE: readonly string[] = [];

describe("issue 47: the addresses a fetch refuses", () => {
  it.each([
    ["192.0.2.1", "documentation"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.200", "documentation"],
    ["2001:db8::1", "documentation"],
    ["2001:0DB8:0:0:0:0:0:1", "documentation"],
    ["64:ff9b:1::a00:1", "private"],
    ["::7f00:1", "multicast or reserved"],
    ["::0.0.0.2", "multicast or reserved"],
    ["::93.184.216.34", "multicast or reserved"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "tunnelled (Teredo)"],
  ])("refuses %s as %s", (address, kind) => {
    expect(refusedKind(address, NONE)).toBe(kind);
  });

  it("checks the IPv4 address a 6to4 address carries, in every spelling", () => {
    expect(refusedKind("2002:7f00:1::", NONE)).toBe("loopback");
    expect(refusedKind("2002:7f00:0001:0000:0000:0000:0000:0001", NONE)).toBe("loopback");
    expect(refusedKind("2002:a9fe:a9fe::1", NONE)).toBe("link-local");
    expect(refusedKind("2002:c0a8:0101::", NONE)).toBe("private");
    expect(refusedKind("2002:5db8:d822::1", NONE)).toBeUndefined();
    // NAT64's well-known prefix, written with the IPv4 tail dotted or not.
    expect(refusedKind("64:ff9b::10.0.0.1", NONE)).toBe("private");
    expect(refusedKind("64:ff9b::a00:1", NONE)).toBe("private");
    expect(refusedKind("64:ff9b::5db8:d822", NONE)).toBeUndefined();
  });

  it("refuses this machine's own addresses, read from its interfaces", () => {
    expect(refusedKind("93.184.216.34", ["93.184.216.34"])).toBe("this machine's own");
    expect(refusedKind("::ffff:93.184.216.34", ["93.184.216.34"])).toBe("this machine's own");
    expect(refusedKind("2606:4700:0:0::1111", ["2606:4700::1111"])).toBe("this machine's own");
    expect(refusedKind("93.184.216.34", ["93.184.216.35"])).toBeUndefined();
    for (const address of ownAddresses()) expect(refusedKind(address)).toBeDefined();
    expect(refusal("93.184.216.34", "93.184.216.34", "this machine's own")).toBe(
      "93.184.216.34 is this machine's own address; fetching it is refused unless FETCH_ALLOW_NETWORKS includes it",
    );
  });
});

describe("issue 47: FETCH_ALLOW_PRIVATE lifts the loopback refusal only; FETCH_ALLOW_NETWORKS names the rest", () => {
  it("allows loopback and nothing else refused when FETCH_ALLOW_PRIVATE=true", () => {
    const guard = addressGuard({ allowLoopback: true });
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) expect(guard(address)).toBeUndefined();
    expect(guard("10.0.0.5")).toBe("private");
    expect(guard("169.254.169.254")).toBe("link-local");
    expect(guard("fd00::2")).toBe("private");
    expect(guard("0.0.0.0")).toBe("unspecified");
    expect(addressGuard({ allowLoopback: false })("127.0.0.1")).toBe("loopback");
  });

  it("allows the networks FETCH_ALLOW_NETWORKS lists, and only those", () => {
    const config = loadConfig({ FETCH_ALLOW_NETWORKS: " 10.20.0.0/16, fd12:3456::/48 " });
    expect(config.FETCH_ALLOW_NETWORKS).toEqual(["10.20.0.0/16", "fd12:3456::/48"]);
    expect(config.FETCH_ALLOW_PRIVATE).toBe(false);
    const guard = addressGuard({ allowLoopback: config.FETCH_ALLOW_PRIVATE, allowNetworks: config.FETCH_ALLOW_NETWORKS });
    expect(guard("10.20.7.1")).toBeUndefined();
    expect(guard("fd12:3456::9")).toBeUndefined();
    expect(guard("10.21.0.1")).toBe("private");
    expect(guard("127.0.0.1")).toBe("loopback");
    expect(loadConfig({}).FETCH_ALLOW_NETWORKS).toEqual([]);
    for (const wrong of ["10.20.0.0", "10.20.0.0/33", "shop.example/16", "fd12::/129"]) {
      expect(() => loadConfig({ FETCH_ALLOW_NETWORKS: wrong })).toThrow(/FETCH_ALLOW_NETWORKS.*each network must be a CIDR/);
    }
  });
});
