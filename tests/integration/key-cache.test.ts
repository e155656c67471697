/**
 * Issue 12, items 6 and 7, and issue 47: how long the key table a server holds
 * in memory may be stale, and what unknown keys cost. A server's key service on a real data
 * dir, with a clock of its own that only moves when told; the operator's
 * changes come through the CLI (another process, through the server's socket)
 * or through a second handle on the same database.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyService, type KeyService } from "../../server/auth/service.js";
import { generateKey } from "../../server/auth/keys.js";
import { CLI_TIMEOUTS, openDatabase, openPostgres, type DatabaseHandle } from "../../server/db/open.js";
import { isDatabaseUnavailable } from "../../server/db/errors.js";
import { openTestDatabase } from "../helpers/database.js";

const TTL_MS = 30_000;

/** Starts an hour ahead of the real clock, so what the CLI process stamps with the real time (a revocation) is past. */
function fakeClock() {
  let time = Date.now() + 3_600_000;
  return { clock: () => new Date(time), advance: (ms: number) => (time += ms) };
}

/** Random bytes that are always the same for one seed, so a test knows a key before it is issued. */
function seeded(seed: number) {
  return (bytes: Uint8Array) => bytes.fill(seed);
}

describe("through the CLI, against a running server's data dir", () => {
  let dir: string;
  let dataDir: string;
  let server: DatabaseHandle;
  let operator: DatabaseHandle;
  const time = fakeClock();
  let keys: KeyService;

  /** The CLI, in a process of its own as an operator runs it (in this process it would take the lock over as stale). */
  async function cli(...argv: string[]): Promise<{ code: number | null; out: string[] }> {
    const child = spawn(process.execPath, ["--import", "tsx", "server/cli/catalog.ts", ...argv], {
      env: { ...process.env, DATA_DIR: dataDir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    return { code, out: output.trim().split("\n") };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "catalog-keys-"));
    dataDir = join(dir, "data");
    server = await openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1, role: "server", warn: () => undefined });
    await server.migrate();
    keys = createKeyService({ db: server.db, clock: time.clock, cacheTtlMs: TTL_MS });
    await keys.syncCache();
    // A second handle, the one the CLI gets: through the server's socket.
    operator = openPostgres({ socketPath: join(dataDir, ".catalog.sock"), max: 1, timeouts: CLI_TIMEOUTS });
  });

  afterAll(async () => {
    await operator.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a key revoked by the CLI at the server's next sync, long before the TTL (issue 12, item 7)", async () => {
    const issued = await cli("keys", "issue", "--name", "soon revoked");
    const key = issued.out.at(-1)!;
    expect((await keys.verify(key)).code).toBe("VALID");

    expect((await cli("keys", "revoke", key)).code).toBe(0);
    // Held in memory until the sync the server runs every second; no time has passed on its clock.
    expect((await keys.verify(key)).code).toBe("VALID");
    await keys.syncCache();
    expect((await keys.verify(key)).code).toBe("REVOKED");
  });

  it("refuses the old key of a rotation whose grace is over at the next sync", async () => {
    const operatorKeys = createKeyService({ db: operator.db, clock: time.clock, cacheTtlMs: 0 });
    const { key, record } = await operatorKeys.issue({ name: "rotating", environment: "dev" });
    expect((await keys.verify(key)).code).toBe("VALID");
    expect(await operatorKeys.rotate(record.id, 0)).not.toBeNull();
    expect((await keys.verify(key)).code).toBe("VALID");
    await keys.syncCache();
    expect((await keys.verify(key)).code).toBe("EXPIRED");
  });

  it("accepts a key issued by another process after it was tried, at its next try, without waiting for a sync (issue 12, item 6; issue 47)", async () => {
    const issuer = createKeyService({ db: operator.db, clock: time.clock, cacheTtlMs: 0, random: seeded(7) });
    const key = generateKey("dev", seeded(7)).key;
    expect((await keys.verify(key)).code).toBe("NOT_FOUND");
    expect((await issuer.issue({ name: "tried first", environment: "dev" })).key).toBe(key);
    // A key the table does not hold waits for the next check of keys_version, which sees the change.
    expect((await keys.verify(key)).code).toBe("VALID");
  });
});

describe("what the database is asked, seen by closing it", () => {
  // A closed database answers nothing: a verify that still answers did not read.
  let database: DatabaseHandle;
  let time: ReturnType<typeof fakeClock>;
  let keys: KeyService;
  let operator: KeyService;

  beforeAll(async () => {
    database = await openTestDatabase();
    await database.migrate();
  });
  afterAll(() => database.close());

  function serverKeys() {
    time = fakeClock();
    keys = createKeyService({ db: database.db, clock: time.clock, cacheTtlMs: TTL_MS });
    operator = createKeyService({ db: database.db, clock: time.clock, cacheTtlMs: 0 });
  }

  it("trusts a held key for the TTL without a sync, then reads it again", async () => {
    serverKeys();
    const { key } = await operator.issue({ name: "ttl", environment: "dev" });
    expect((await keys.verify(key)).code).toBe("VALID");
    await operator.revoke(key);
    time.advance(TTL_MS - 1);
    expect((await keys.verify(key)).code).toBe("VALID");
    time.advance(1);
    expect((await keys.verify(key)).code).toBe("REVOKED");
  });

  it("answers held keys from the table whatever a flood of unknown keys does, even with the database gone (issue 47)", async () => {
    const flood = await openTestDatabase();
    await flood.migrate();
    const floodKeys = createKeyService({ db: flood.db, clock: time.clock, cacheTtlMs: TTL_MS });
    const issued = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        createKeyService({ db: flood.db, clock: time.clock, cacheTtlMs: 0 }).issue({ name: `held ${i}`, environment: "dev" }),
      ),
    );
    await floodKeys.syncCache();
    const before = await Promise.all(Array.from({ length: 500 }, () => floodKeys.verify(generateKey("dev").key)));
    expect(before.every((result) => result.code === "NOT_FOUND")).toBe(true);
    await flood.close(); // from here on, any read fails
    // Unknown keys cannot be checked against a database that does not answer (503); the keys held are verified all along.
    const flooding = Promise.all(Array.from({ length: 500 }, () => floodKeys.verify(generateKey("dev").key).catch((error: unknown) => error)));
    for (const { key } of issued) expect((await floodKeys.verify(key)).code).toBe("VALID");
    expect((await flooding).every(isDatabaseUnavailable)).toBe(true);
  });

  it("confirms the table at each sync, reads it again in one query after a change, and trusts it for the TTL while the database is gone", async () => {
    serverKeys();
    const { key } = await operator.issue({ name: "confirmed", environment: "dev" });
    const unknown = generateKey("dev").key;
    expect((await keys.verify(key)).code).toBe("VALID");
    expect((await keys.verify(unknown)).code).toBe("NOT_FOUND");
    await keys.syncCache();
    time.advance(TTL_MS - 1);
    await keys.syncCache(); // unchanged: confirmed, trusted for another TTL
    await operator.issue({ name: "a change", environment: "dev" });
    time.advance(TTL_MS - 1);
    await keys.syncCache(); // changed: the table is read again
    expect((await keys.verify(unknown)).code).toBe("NOT_FOUND");

    await database.close();
    time.advance(TTL_MS - 1);
    expect((await keys.verify(key)).code).toBe("VALID");
    // Within the TTL the table is trusted; an unknown key's check fails, so it cannot be checked.
    await expect(keys.verify(generateKey("dev").key)).rejects.toSatisfy(isDatabaseUnavailable);
    time.advance(1);
    // Unconfirmed for a TTL now: asked again, and the database does not answer.
    await expect(keys.verify(key)).rejects.toSatisfy(isDatabaseUnavailable);
    await expect(keys.syncCache()).rejects.toSatisfy(isDatabaseUnavailable);
  });
});
