/**
 * Issue 51: availability and price decided by weighed evidence, and prices read in the page's locale, on pages
 * written for the project (tests/fixtures/pdp); the data files they read are validated.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fittedWeights, parseWeights, SIGNS, WEIGHTS_PATH } from "../../../server/ingest/extract/evidence.js";
import { extractProduct } from "../../../server/ingest/extract/index.js";
import { pageLocale } from "../../../server/ingest/extract/locale.js";
import { parseAmount } from "../../../server/ingest/extract/price.js";
import { parseWording, WORDING_PATH } from "../../../server/ingest/extract/wording.js";
import { fixture } from "./helpers.js";

function explained(html: string) {
  const result = extractProduct(html, { explain: true });
  if (!result.ok) expect.fail(result.error);
  return { record: result.record, explain: result.explained! };
}

describe("availability weighed from what the page shows", () => {
  it("a disabled buy button and 'notify me' in German make a page sold out; another product's button does not count", () => {
    const { record, explain } = explained(fixture("evidence-sold-out-de.html"));
    expect(record.offers?.availability).toBe("OutOfStock");
    expect(record.provenance.availability).toMatchObject({ source: "visible", rule: "weighed_evidence" });
    const signals = explain.availability?.evidence?.map((item) => item.signal);
    expect(signals).toEqual(expect.arrayContaining(["buy_disabled", "notify_me", "nothing_to_buy_and_sold_out"]));
    expect(signals).not.toContain("buy_enabled");
    // The footer's delivery time is the site's, not this product's.
    expect(signals).not.toContain("delivery");
  });

  it("an enabled button, a quantity selector and a delivery estimate in French outweigh stale out-of-stock markup", () => {
    const { record, explain } = explained(fixture("evidence-in-stock-fr.html"));
    expect(record.offers).toMatchObject({ price: "24.99", currency: "EUR", availability: "InStock" });
    const signals = explain.availability?.evidence?.map((item) => item.signal);
    expect(signals).toEqual(expect.arrayContaining(["markup_out_of_stock", "buy_enabled", "quantity", "delivery"]));
    expect(record.provenance.availability!.confidence).toBeGreaterThanOrEqual(0.5);
  });

  it("Japanese stock wording and a restock alert with nothing to buy make a page sold out", () => {
    const { record } = explained(fixture("evidence-sold-out-ja.html"));
    expect(record.offers).toMatchObject({ price: "12800", currency: "JPY", availability: "OutOfStock" });
  });

  it("the confidence is the fitted model's, and more evidence makes it surer", () => {
    const page = fixture("evidence-in-stock-fr.html");
    const bare = page.replace(/<label[\s\S]*?<\/select>/, "").replace(/<p class="shipping">.*<\/p>/, "");
    const full = explained(page).record.provenance.availability!.confidence;
    expect(explained(bare).record.offers?.availability).toBe("InStock");
    expect(explained(bare).record.provenance.availability!.confidence).toBeLessThan(full);
  });
});

describe("price candidates compared across layers", () => {
  it("the amount two layers agree on beats the most trustworthy layer's lone one, and --explain lists every candidate", () => {
    const { record, explain } = explained(fixture("price-candidates.html"));
    expect(record.offers?.price).toBe("110");
    expect(explain.price?.candidates?.map((candidate) => candidate.amount).sort()).toEqual(["110", "219.99"]);
    const [winner, loser] = [...(explain.price?.candidates ?? [])].sort((a, b) => b.probability - a.probability);
    expect(winner).toMatchObject({ amount: "110" });
    expect(record.provenance.price?.confidence).toBe(winner!.probability);
    expect(loser!.probability).toBeLessThan(0.5);
  });
});

describe("prices read in the page's locale", () => {
  it("one separator before three digits is the decimal mark where the locale writes it so, and the currency has decimals", () => {
    expect(parseAmount("24,990 €", "EUR", ",")).toBe("24.99");
    expect(parseAmount("24,990 €", "EUR")).toBe("24990");
    expect(parseAmount("$2.449", "USD", ".")).toBe("2.449");
    expect(parseAmount("2.449 kr.", "DKK", ",")).toBe("2449");
    // Chilean pesos have no decimals: `.` before three digits groups thousands whatever the locale.
    expect(parseAmount("$229.990", "CLP", ".")).toBe("229990");
    // Written unambiguously, the locale does not matter.
    expect(parseAmount("1.234,56 €", "EUR", ".")).toBe("1234.56");
  });

  it("the locale comes from lang, then the domain's country, then the currency", () => {
    expect(pageLocale("de-CH", "https://shop.example.com/", "USD")).toEqual({ decimal: ",", from: "lang=de" });
    expect(pageLocale(undefined, "https://tienda.example.cl/p/1", "USD")).toEqual({ decimal: ",", from: "domain .cl" });
    expect(pageLocale("", "https://shop.example/", "GBP")).toEqual({ decimal: ".", from: "currency GBP" });
    expect(pageLocale("xx", "https://shop.example/", undefined)).toEqual({});
  });

  it("a Spanish page's `24,990 €` is 24.99; the same page in English is 24990", () => {
    const html = fixture("price-locale-es.html");
    const spanish = explained(html);
    expect(spanish.record.offers?.price).toBe("24.99");
    expect(spanish.explain.price?.locale).toEqual({ decimal: ",", from: "lang=es" });
    expect(explained(html.replace('lang="es"', 'lang="en"')).record.offers?.price).toBe("24990");
  });
});

describe("the data files", () => {
  it("refuses a wording fragment that repeats or is no regular expression, naming where", () => {
    const wording = JSON.parse(readFileSync(WORDING_PATH, "utf8"));
    wording.notify.en.push("notify( me)+");
    expect(() => parseWording(JSON.stringify(wording), "w.json")).toThrow(/w\.json: notify\.en\.\d+: a fragment may not repeat/);
    wording.notify.en.pop();
    wording.delivery.de.push("lieferung (");
    expect(() => parseWording(JSON.stringify(wording), "w.json")).toThrow(/delivery\.de\.\d+: not a regular expression/);
  });

  it("refuses weights with a signal missing, and the fitted weights keep every declared sign", () => {
    const weights = JSON.parse(readFileSync(WEIGHTS_PATH, "utf8"));
    delete weights.availability.weights.quantity;
    expect(() => parseWeights(JSON.stringify(weights), "e.json")).toThrow(/e\.json: availability\.weights\.quantity/);
    const fitted = fittedWeights();
    const all: Record<string, number> = { ...fitted.availability.weights, ...fitted.price.weights };
    for (const [signal, sign] of Object.entries(SIGNS)) expect(all[signal]! * sign!, signal).toBeGreaterThanOrEqual(0);
  });
});
