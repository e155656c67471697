/**
 * DATABASE_REPLICA_URLS: catalog reads go to the read replicas, writes to the
 * primary. Primary and "replica" are two separate PGlite servers over
 * pglite-socket, loaded with different names for the same products, so each
 * answer shows where it was read. (Nothing replicates between them: that is
 * Postgres's job, not ours.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { startSocketPostgres, type SocketPostgres } from "../helpers/pgsocket.js";
import { sharedEmbedder } from "../helpers/embedder.js";
import { FIXTURE } from "../helpers/catalog.js";
import { openPostgres, type DatabaseHandle } from "../../server/db/open.js";
import { importRecords } from "../../server/ingest/import.js";
import { parseLine } from "../../server/ingest/ndjson.js";
import { products, rateLimits } from "../../server/db/schema.js";
import { productIdFromUrlKey } from "../../server/catalog/ids.js";
import { productUrlKey } from "../../shared/url.js";

const tentId = productIdFromUrlKey(productUrlKey(FIXTURE[0]!.url)!);
let primary: SocketPostgres;
let replica: SocketPostgres;
let replicaDb: DatabaseHandle;
let t: TestApp;

beforeAll(async () => {
  [primary, replica] = await Promise.all([startSocketPostgres(2), startSocketPostgres(2)]);
  replicaDb = openPostgres({ url: replica.url, max: 1 });
  await replicaDb.migrate();
  const lines = FIXTURE.map((record, index) => parseLine("replica", index + 1, JSON.stringify({ ...record, name: `Replica ${record.name}` })));
  expect((await importRecords({ db: replicaDb.db, embedder: await sharedEmbedder() }, lines)).failed).toBe(0);
  // The app imports the fixture into the primary and issues its key there.
  t = await createTestApp({ database: openPostgres({ url: primary.url, replicaUrls: [replica.url], max: 1 }) });
});
afterAll(async () => {
  await t?.close();
  await replicaDb?.close();
  await Promise.all([primary?.close(), replica?.close()]);
});

const get = (url: string) => t.app.inject({ url, headers: { authorization: t.key } });

describe("read replicas", () => {
  it("serves lookups and searches from the replica", async () => {
    expect((await get(`/api/v1/products/${tentId}`)).json().pdp.name).toBe(`Replica ${FIXTURE[0]!.name}`);
    expect((await get(`/api/v1/products?url=${encodeURIComponent(FIXTURE[0]!.url)}&include_raw_data=true`)).json().pdp.name).toMatch(/^Replica /);
    const search = await get("/api/v1/products/search?q=tent&limit=3");
    expect(search.statusCode).toBe(200);
    const names = search.json().products.map((p: { pdp: { name: string } }) => p.pdp.name);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(name).toMatch(/^Replica /);
  });

  it("writes imports, keys and rate-limit counters to the primary only", async () => {
    const [row] = await t.database.db.select({ name: products.name }).from(products).where(eq(products.id, tentId));
    expect(row?.name).toBe(FIXTURE[0]!.name);
    // The key was issued on the primary and verified there: the replica has never seen it.
    expect((await get(`/api/v1/products/${tentId}`)).statusCode).toBe(200);
    expect((await t.database.db.select().from(rateLimits)).length).toBeGreaterThan(0);
    expect(await replicaDb.db.select().from(rateLimits)).toEqual([]);
  });
});
