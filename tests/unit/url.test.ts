import { describe, expect, it } from "vitest";
import { brandHost, productUrlKey } from "../../shared/url.js";

describe("productUrlKey", () => {
  const base = "northpeak.example/products/alpine-tent";
  it.each([
    ["https://www.northpeak.example/products/alpine-tent", base],
    ["http://northpeak.example/products/alpine-tent", base],
    ["HTTPS://WWW.NorthPeak.Example/products/alpine-tent", base],
    ["https://northpeak.example:443/products/alpine-tent", base],
    ["http://northpeak.example:80/products/alpine-tent", base],
    ["https://northpeak.example/products/alpine-tent/", base],
    ["https://northpeak.example/products/alpine-tent#reviews", base],
    ["https://northpeak.example/products/alpine-tent?utm_source=news&utm_medium=email", base],
    ["https://northpeak.example/products/alpine-tent?gclid=abc&fbclid=def&mc_eid=1&msclkid=2", base],
    ["https://northpeak.example/products/alpine-tent?variant=42", `${base}?variant=42`],
    ["https://northpeak.example/products/alpine-tent?variant=42&utm_campaign=x", `${base}?variant=42`],
    ["https://northpeak.example/products/alpine-tent?size=m&color=red", `${base}?color=red&size=m`],
    ["https://northpeak.example:8443/products/alpine-tent", "northpeak.example:8443/products/alpine-tent"],
    ["https://northpeak.example/", "northpeak.example"],
  ])("%s → %s", (input, expected) => {
    expect(productUrlKey(input)).toBe(expected);
  });

  it("keeps path case and distinguishes variants", () => {
    expect(productUrlKey("https://a.example/P/X")).not.toBe(productUrlKey("https://a.example/p/x"));
    expect(productUrlKey("https://a.example/p?variant=1")).not.toBe(productUrlKey("https://a.example/p?variant=2"));
  });

  it.each(["not a url", "ftp://a.example/x", "/relative/path", "mailto:a@b.example", ""])("rejects %j", (input) => {
    expect(productUrlKey(input)).toBeNull();
  });
});

describe("brandHost", () => {
  it.each([
    ["northpeak.example", "northpeak.example"],
    ["www.northpeak.example", "northpeak.example"],
    ["NorthPeak.Example", "northpeak.example"],
    ["https://www.northpeak.example/products/x?y=1", "northpeak.example"],
    ["http://northpeak.example:8080", "northpeak.example"],
    ["shop.haldenaudio.example", "shop.haldenaudio.example"],
  ])("%s → %s", (input, expected) => {
    expect(brandHost(input)).toBe(expected);
  });

  it.each(["", "   ", "%%%", "ftp://x.example", "https://user:pw@x.example", "a b.example"])("rejects %j", (input) => {
    expect(brandHost(input)).toBeNull();
  });
});
