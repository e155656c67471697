/**
 * Issue 47, first finding: a flood of made-up keys locked valid keys out. A process-wide budget of reads that find
 * nothing (100 a second) was shared by every key the server did not hold yet, so ~100 well-formed random keys a second
 * from anyone got every uncached valid key a 503, all of them right after a restart. Now the server holds the whole
 * key table: an unknown key costs a map lookup, and a valid key is verified whatever the flood.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, rootOn, type TestApp } from "../helpers/app.js";
import { generateKey } from "../../server/auth/keys.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const LOOKUP = "/api/v1/products/pdp_none";

function get(key: string) {
  return t.app.inject({ method: "GET", url: LOOKUP, headers: { authorization: `Bearer ${key}` } });
}

describe("a flood of made-up keys (issue 47)", () => {
  it("never keeps a valid key from being verified: keys not yet held get their answer, never a 503", async () => {
    // Issued after the app was built: none is held before its first request, as after a restart.
    const valid = await Promise.all(Array.from({ length: 30 }, (_, i) => t.services.keys.issue({ name: `flood ${i}`, environment: "dev" })));
    const madeUp = Array.from({ length: 400 }, () => generateKey("dev").key);
    // Three times the old budget of made-up keys at once, the valid keys behind them in the same burst.
    const answers = await Promise.all([...madeUp.map(get), ...valid.map(({ key }) => get(key))]);
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.slice(0, madeUp.length).every((status) => status === 401)).toBe(true);
    // Not found is this lookup's answer: the key was accepted and the product looked for.
    expect(statuses.slice(madeUp.length)).toEqual(valid.map(() => 404));
  });

  it("accepts a key another server issued at its first try, in the middle of a flood", async () => {
    const other = await rootOn(t.database);
    try {
      const { key } = await (await other.services()).keys.issue({ name: "from another server", environment: "dev" });
      const answers = await Promise.all([...Array.from({ length: 200 }, () => get(generateKey("dev").key)), get(key)]);
      expect(answers.slice(0, -1).every((answer) => answer.statusCode === 401)).toBe(true);
      expect(answers.at(-1)?.statusCode).toBe(404);
    } finally {
      await other.close();
    }
  });
});
