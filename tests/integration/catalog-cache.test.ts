/**
 * The product cache (server/catalog/service.ts) on a real database: products
 * are changed behind its back with plain SQL, so what an answer shows says
 * whether it came from the cache or from the database.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { FIXTURE } from "../helpers/catalog.js";
import { products } from "../../server/db/schema.js";
import { bumpCatalogVersion } from "../../server/catalog/repository.js";
import { productIdFromUrlKey } from "../../server/catalog/ids.js";
import { productUrlKey } from "../../shared/url.js";

const tent = FIXTURE[0]!;
const tentId = productIdFromUrlKey(productUrlKey(tent.url)!);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function rename(name: string): Promise<void> {
  await t.database.db.update(products).set({ name }).where(eq(products.id, tentId));
}
const nameById = async () => (await t.services.catalog.byId(tentId, false))?.name;
const nameByUrl = async () => (await t.services.catalog.byUrl(tent.url, false))?.name;

describe("product cache", () => {
  it("serves a product it has read until the catalog's version changes", async () => {
    await t.services.catalog.syncCache();
    await rename("First name");
    await bumpCatalogVersion(t.database.db);
    await t.services.catalog.syncCache();
    expect(await nameById()).toBe("First name");
    expect(await nameByUrl()).toBe("First name");

    await rename("Second name"); // no version bump: not an import
    await t.services.catalog.syncCache();
    expect(await nameById()).toBe("First name");
    expect(await nameByUrl()).toBe("First name");
    // raw_data reads always go to the database.
    expect((await t.services.catalog.byId(tentId, true))?.name).toBe("Second name");

    await bumpCatalogVersion(t.database.db);
    await t.services.catalog.syncCache();
    expect(await nameById()).toBe("Second name");
    expect(await nameByUrl()).toBe("Second name");
  });

  it("rereads a product after its time to live even if the version could not be checked", async () => {
    expect(await nameById()).toBeDefined();
    await rename("Third name");
    expect(await nameById()).not.toBe("Third name");
    t.advance(60_000);
    expect(await nameById()).toBe("Third name");
  });

  it("caches nothing with PRODUCT_CACHE_SIZE=0, and never caches an absence", async () => {
    const uncached = await createTestApp({ config: { PRODUCT_CACHE_SIZE: 0 } });
    try {
      expect((await uncached.services.catalog.byId(tentId, false))?.name).toBe(tent.name);
      await uncached.database.db.update(products).set({ name: "Renamed" }).where(eq(products.id, tentId));
      expect((await uncached.services.catalog.byId(tentId, false))?.name).toBe("Renamed");
    } finally {
      await uncached.close();
    }
    expect(await t.services.catalog.byId("pdp_not_yet", false)).toBeNull();
    const [row] = await t.database.db.select().from(products).where(eq(products.id, tentId));
    await t.database.db.insert(products).values({ ...row!, id: "pdp_not_yet", url: "https://x.example/new", urlKey: "x.example/new" });
    expect((await t.services.catalog.byId("pdp_not_yet", false))?.url).toBe("https://x.example/new");
  });
});
