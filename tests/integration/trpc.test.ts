/** TypeScript consumers: the typed client from shared/ over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCClientError } from "@trpc/client";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { createCatalogClient, type CatalogClient } from "../../shared/client.js";
import { ProductSchema } from "../../shared/schemas/index.js";
import { FIXTURE } from "../helpers/catalog.js";

let t: TestApp;
let baseUrl: string;
let client: CatalogClient;
beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
  client = createCatalogClient({ baseUrl, apiKey: t.key });
});
afterAll(() => t.close());

describe("tRPC client", () => {
  it("searches, gets by id and looks up by URL with typed results", async () => {
    const { products } = await client.products.search.query({ q: "cast iron pan", limit: 3 });
    // Only what matches (issue 13): at most the limit.
    expect(products.length).toBeGreaterThan(0);
    expect(products.length).toBeLessThanOrEqual(3);
    const first = products[0]!.pdp;
    expect(first.name).toBe("Cast Iron Skillet 26 cm");
    const byId = await client.products.byId.query({ id: first.id, include_raw_data: true });
    expect(ProductSchema.parse(byId.pdp).raw_data).toEqual({ strippedHtml: null, jsons: { ld_json: null, props_data: null } });
    const byUrl = await client.products.byUrl.query({ url: `${FIXTURE[0]!.url}?utm_source=x` });
    expect(byUrl.pdp.name).toBe("Alpine 2 Backpacking Tent");
  });

  it("parses inputs the same after REST traffic (the bridge must not switch on coercion)", async () => {
    await fetch(`${baseUrl}/api/v1/products/search?q=tent&limit=5&include_raw_data=false`, { headers: { authorization: t.key } });
    // Coercion would read `true` as limit 1 and the string "false" as true.
    const error = await client.products.search.query({ q: "tent", limit: true as unknown as number }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    const data = (error as TRPCClientError<never>).data as unknown as { code: string; errors: { param: string }[] };
    expect(data.code).toBe("invalid_parameter");
    expect(data.errors[0]?.param).toBe("limit");
    const { products } = await client.products.search.query({ q: "tent", include_raw_data: "false" as unknown as boolean });
    expect(products[0]?.pdp).not.toHaveProperty("raw_data");
  });

  it("gives the same machine codes as REST: not_found and unauthorized", async () => {
    const missing = await client.products.byId.query({ id: "pdp_missing" }).catch((e: unknown) => e);
    expect((missing as TRPCClientError<never>).data).toMatchObject({ code: "not_found", httpStatus: 404 });
    const anonymous = createCatalogClient({ baseUrl, apiKey: "pcl_test_nope" });
    const refused = await anonymous.products.search.query({ q: "tent" }).catch((e: unknown) => e);
    expect((refused as TRPCClientError<never>).data).toMatchObject({ code: "unauthorized", httpStatus: 401 });
  });
});
