/**
 * Issue 11, item 6: a client of the data dir's socket (the CLI) runs under
 * PGlite's transaction lock, and the server's own queries wait meanwhile. One
 * that keeps the lock past the bound is cut off: its transaction is rolled
 * back, the server's reads resume, its next statement fails, and the server
 * says so once.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "../../server/db/open.js";
import { lockPath } from "../../server/db/lock.js";
import { catalogMeta } from "../../server/db/schema.js";

const HOLD_LIMIT_MS = 500;

let dir: string;
let database: DatabaseHandle;
let socketPath: string;
const warnings: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "catalog-socket-"));
  const dataDir = join(dir, "data");
  database = await openDatabase({
    databaseUrl: undefined,
    dataDir,
    poolSize: 1,
    role: "server",
    socketHoldLimitMs: HOLD_LIMIT_MS,
    warn: (line) => warnings.push(line),
  });
  await database.migrate();
  socketPath = (JSON.parse(readFileSync(lockPath(dataDir), "utf8")) as { socket: string }).socket;
});

afterAll(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A postgres.js client over the socket, as the CLI connects. */
function socketClient() {
  return postgres({ path: socketPath, user: "postgres", database: "template1", max: 1, onnotice: () => undefined });
}

async function countMarked(value: string): Promise<number> {
  return database.db.$count(catalogMeta, eq(catalogMeta.value, value));
}

describe("the socket bridge's deadline (issue 11, item 6)", () => {
  it("cuts off a client that holds a transaction past the bound; the server's query completes and the client's next statement fails", async () => {
    const client = socketClient();
    try {
      let holding!: () => void;
      const inTransaction = new Promise<void>((resolve) => (holding = resolve));
      let proceed!: () => void;
      const serverAnswered = new Promise<void>((resolve) => (proceed = resolve));
      const transaction = client.begin(async (tx) => {
        await tx`insert into catalog_meta (key, value) values ('held', 'held by the client')`;
        holding();
        await serverAnswered;
        await tx`select 1`;
      });
      const outcome = transaction.then(
        () => null,
        (error: unknown) => error,
      );
      await inTransaction;

      // Waits for the lock the client keeps, then gets it once the client is cut off.
      const asked = performance.now();
      expect(await countMarked("held by the client")).toBe(0);
      expect(performance.now() - asked).toBeGreaterThan(HOLD_LIMIT_MS * 0.8);
      proceed();

      const error = await outcome;
      expect(error).toMatchObject({ code: "25P04" }); // transaction_timeout
      expect(String((error as Error).message)).toMatch(
        /^this connection was cut off: it kept the catalog server's embedded database to itself for \d+ ms/,
      );
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^cut off a client of the data dir's socket that kept the database locked for \d+ ms \(limit 500 ms\)/);
      // Rolled back, and the lock is free for the server and for new clients.
      expect(await countMarked("held by the client")).toBe(0);
      const next = socketClient();
      try {
        expect(await next`select 2 as two`).toEqual([{ two: 2 }]);
      } finally {
        await next.end({ timeout: 1 });
      }
    } finally {
      await client.end({ timeout: 1 });
    }
  });

  it("does not cut off a client whose transactions each end in time, however long it stays connected", async () => {
    const before = warnings.length;
    const client = socketClient();
    try {
      for (let i = 0; i < 4; i++) {
        await client.begin(async (tx) => {
          await tx`insert into catalog_meta (key, value) values (${`quick ${i}`}, 'quick')`;
        });
        await new Promise((resolve) => setTimeout(resolve, HOLD_LIMIT_MS / 2));
      }
      expect(await countMarked("quick")).toBe(4);
      expect(warnings.length).toBe(before);
    } finally {
      await client.end({ timeout: 1 });
    }
  });
});
