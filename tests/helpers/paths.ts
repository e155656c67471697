/**
 * The two database paths an integration test runs on, each for one `describe.each(DATABASE_PATHS)` block: embedded
 * PGlite in-process, or real Postgres (PGlite behind the socket bridge) through postgres.js.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { openPostgres } from "../../server/db/open.js";
import { type SearchResponse, SearchResponseSchema } from "../../shared/schemas/index.js";
import { createTestApp, type TestApp } from "./app.js";
import { startSocketPostgres, type SocketPostgres } from "./pgsocket.js";

export const DATABASE_PATHS = ["PGlite", "postgres.js"] as const;
export type DatabasePath = (typeof DATABASE_PATHS)[number];

/**
 * A test app on `path` for the enclosing block, made before its tests and closed after them; `app()` is it, `search`
 * asks the REST search with the app's key and parses a 200 answer.
 */
export function appOnPath(path: DatabasePath, options: Omit<Parameters<typeof createTestApp>[0] & object, "database"> = {}, timeoutMs = 240_000) {
  let t: TestApp | undefined;
  let pg: SocketPostgres | undefined;
  beforeAll(async () => {
    pg = path === "postgres.js" ? await startSocketPostgres(4) : undefined;
    t = await createTestApp({ ...options, ...(pg ? { database: openPostgres({ url: pg.url, max: 1 }) } : {}) });
  }, timeoutMs);
  afterAll(async () => {
    await t?.close();
    await pg?.close();
  });
  const app = (): TestApp => {
    if (!t) throw new Error("the test app is made in beforeAll");
    return t;
  };
  async function search(query: string): Promise<SearchResponse> {
    const answer = await app().app.inject({ url: `/api/v1/products/search?${query}`, headers: { authorization: app().key } });
    expect(answer.statusCode, answer.body).toBe(200);
    return SearchResponseSchema.parse(answer.json());
  }
  return { app, search };
}
