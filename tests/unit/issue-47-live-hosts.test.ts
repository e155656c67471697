/**
 * Issue 47: which URLs live lookup may request, every redirect hop included (`liveLookupPermit`, from
 * LIVE_LOOKUP_HOSTS as config.ts writes it). A host without a port is its schemes' own ports only; a port written
 * is that port only. URLs are strings here: nothing is requested.
 */
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";
import { liveLookupPermit } from "../../server/fetch/live.js";

const permit = liveLookupPermit(loadConfig({ LIVE_LOOKUP_HOSTS: "shop.example,Kettles.example:8443,[2001:db8::7]" }).LIVE_LOOKUP_HOSTS);
const allowed = (url: string) => permit(new URL(url)) === undefined;

describe("issue 47: live lookup's permit", () => {
  it("allows a listed host (and its www.) on its scheme's own port", () => {
    for (const url of ["https://shop.example/p/1", "http://shop.example/p/1", "https://www.shop.example:443/p/1", "http://[2001:db8::7]/p"]) {
      expect(allowed(url)).toBe(true);
    }
  });

  it("refuses another port, another host, a subdomain, another scheme", () => {
    for (const url of [
      "http://shop.example:8080/p/1",
      "http://shop.example:443/p/1",
      "https://shop.example:80/p/1",
      "https://shop.example:22/",
      "https://evil.example/p/1",
      "https://cdn.shop.example/p/1",
      "https://shop.example.evil.example/p/1",
      "ftp://shop.example/p/1",
      "http://[2001:db8::7]:6379/",
      "https://kettles.example/p/1",
    ]) {
      expect(allowed(url)).toBe(false);
    }
    expect(permit(new URL("https://evil.example/"))).toBe("not on LIVE_LOOKUP_HOSTS (its scheme, host or port)");
  });

  it("allows a host listed with a port on that port only, either scheme", () => {
    expect(allowed("https://kettles.example:8443/p/1")).toBe(true);
    expect(allowed("http://www.kettles.example:8443/p/1")).toBe(true);
    expect(allowed("https://kettles.example:8444/p/1")).toBe(false);
  });
});
