/**
 * Embedded PGlite answers on the event loop's thread (issue 16, fairness): each query starts on a later turn of
 * the loop, so a chain of queries (a search's steps, or several searches') never keeps sockets unread. Without it,
 * the loop stood still for as long as searches had queries left: 215 ms at the median at 32 connections.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { DatabaseHandle } from "../../server/db/open.js";
import { openTestDatabase } from "../helpers/database.js";

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await openTestDatabase();
});
afterAll(() => handle.close());

it("lets the event loop turn between two queries of a chain, and between two chains' queries", async () => {
  let turns = 0;
  let ticking = true;
  const tick = () => {
    turns++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const chain = async () => {
    for (let i = 0; i < 20; i++) await handle.db.execute(sql`select ${i}::int as i`);
  };
  const before = turns;
  await Promise.all([chain(), chain()]);
  ticking = false;
  // 40 queries, two at a time: at least one turn between each chain's queries.
  expect(turns - before).toBeGreaterThanOrEqual(19);
});
