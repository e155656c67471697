/**
 * Price filters across currencies with the operator's exchange rates (FX_RATES_FILE), on embedded PGlite and on the
 * postgres.js path: REST search, UCP search, and a start refused over a broken file. Without rates prices are never
 * converted (structured.test.ts).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../server/db/open.js";
import { RulesError } from "../../server/search/rules/files.js";
import { SearchResponseSchema, type SearchResponse } from "../../shared/schemas/index.js";
import { createTestApp, rootOn, type TestApp } from "../helpers/app.js";
import { startSocketPostgres, type SocketPostgres } from "../helpers/pgsocket.js";
import { STRUCTURED } from "../helpers/structured.js";

// One euro is 1.10 dollars and 0.85 pounds: the skillet's 49.90 € is $54.89, the headphones' £149 are $192.82.
const RATES = { amount: 1, base: "EUR", date: "2026-11-20", rates: { USD: 1.1, GBP: 0.85 } };

function ratesFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "rates-")), "rates.json");
  writeFileSync(file, text);
  return file;
}

describe.each(["PGlite", "postgres.js"] as const)("on %s", (path) => {
  let t: TestApp;
  let pg: SocketPostgres | undefined;
  beforeAll(async () => {
    pg = path === "postgres.js" ? await startSocketPostgres(4) : undefined;
    t = await createTestApp({
      records: STRUCTURED,
      config: { FX_RATES_FILE: ratesFile(JSON.stringify(RATES)) },
      ...(pg ? { database: openPostgres({ url: pg.url, max: 1 }) } : {}),
    });
  });
  afterAll(async () => {
    await t?.close();
    await pg?.close();
  });

  async function search(query: string): Promise<SearchResponse> {
    const answer = await t.app.inject({ url: `/api/v1/products/search?${query}`, headers: { authorization: t.key } });
    expect(answer.statusCode, answer.body).toBe(200);
    return SearchResponseSchema.parse(answer.json());
  }
  const names = (body: SearchResponse) => body.products.map((hit) => hit.pdp.name);

  it("applies a price filter to prices in other currencies, converted, and says at which rates", async () => {
    const body = await search("q=cast%20iron%20skillet&price_max=55&currency=USD");
    expect(names(body)).toEqual(["Cast Iron Skillet 26 cm"]);
    expect(body.messages).toEqual([
      {
        code: "converted",
        text: "Prices in 2 other currencies were converted to USD for the price filter, at the operator's exchange rates of 2026-11-20; products priced in a currency without a rate were not considered.",
      },
    ]);
    // $54 is 49.09 €: under the skillet's price. $54.89 is its price exactly, which the bound includes.
    expect(names(await search("q=cast%20iron%20skillet&price_max=54&currency=USD"))).toEqual([]);
    expect(names(await search("q=cast%20iron%20skillet&price_max=54.89&currency=USD"))).toEqual(["Cast Iron Skillet 26 cm"]);
    // Through the base: pounds to dollars.
    expect(names(await search("q=studio%20headphones&price_max=195&currency=USD"))).toContain("Studio Over-Ear Headphones");
    expect(names(await search("q=studio%20headphones&price_max=190&currency=USD"))).not.toContain("Studio Over-Ear Headphones");
  });

  it("reads a price in the query the same way", async () => {
    const body = await search(`q=${encodeURIComponent("cast iron skillet under $60")}`);
    expect(names(body)).toEqual(["Cast Iron Skillet 26 cm"]);
    expect(body.messages?.map((message) => message.code)).toEqual(["converted"]);
  });

  it("orders a price sort in the currency asked only, and converts nothing from a currency the rates lack", async () => {
    const sorted = await search("q=cast%20iron%20skillet&sort=price_asc&currency=USD");
    expect(sorted.products).toEqual([]);
    expect(sorted.messages?.[0]?.text).toMatch(
      /^Prices are not converted for a price sort: only products priced in USD were considered for the price sort\./,
    );
    const francs = await search("q=cast%20iron%20skillet&price_max=100&currency=CHF");
    expect(francs.products).toEqual([]);
    expect(francs.messages?.[0]?.text).toMatch(
      /^Prices are not converted from CHF, which the exchange rates lack: only products priced in CHF were considered for the price filter\./,
    );
  });

  it("converts a UCP search's and product's price filter too, and variants pass in their own currency", async () => {
    const ucp = (operation: string, body: unknown) =>
      t.app.inject({
        method: "POST",
        url: `/ucp/catalog/${operation}`,
        headers: { authorization: t.key, "ucp-agent": 'profile="https://platform.example/.well-known/ucp"', "content-type": "application/json" },
        payload: JSON.stringify(body),
      });
    const filter = (max: number) => ({ filters: { price: { max } }, context: { currency: "USD" } });
    const answer = await ucp("search", { query: "cast iron skillet", ...filter(5500) });
    expect(answer.statusCode, answer.body).toBe(200);
    const body = answer.json<{
      products: { id: string; title: string; price_range: { min: { amount: number; currency: string } } }[];
      messages?: { code: string }[];
    }>();
    expect(body.products.map((product) => [product.title, product.price_range.min])).toEqual([
      ["Cast Iron Skillet 26 cm", { amount: 4990, currency: "EUR" }],
    ]);
    expect(body.messages?.map((message) => message.code)).toContain("converted");
    // A product's variants pass a converted bound, and fail one they are above.
    const id = body.products[0]!.id;
    expect((await ucp("product", { id, ...filter(5500) })).json().product?.id).toBe(id);
    expect((await ucp("product", { id, ...filter(5400) })).json().messages?.[0]).toMatchObject({ code: "filtered_out" });
    // A currency the rates lack: the same words as a REST search's.
    const francs = await ucp("lookup", { ids: [id], filters: { price: { max: 5500 } }, context: { currency: "CHF" } });
    expect(francs.json().messages).toContainEqual(
      expect.objectContaining({
        code: "currency_only",
        content:
          "Prices are not converted from CHF, which the exchange rates lack: only variants priced in CHF were considered for the price filter.",
      }),
    );
  });
});

describe("a rates file with a mistake", () => {
  it("stops the start, naming the file and the problem", async () => {
    const t = await createTestApp({ records: [] });
    const file = ratesFile('{"base":"EUR","date":"2026-11-20","rates":{"USD":-1}}');
    const root = await rootOn(t.database, { config: { FX_RATES_FILE: file } });
    const failure = root.services();
    await expect(failure).rejects.toThrow(RulesError);
    await expect(failure).rejects.toThrow(`FX_RATES_FILE ${file}: the rate of USD must be a positive number, not -1`);
    await root.close();
    await t.close();
  });
});
