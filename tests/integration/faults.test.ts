/**
 * The postgres.js path when the database stops answering: against PGlite over
 * @electric-sql/pglite-socket, reached through a loopback TCP relay that can
 * also go silent (a hung server or a dropped network: connections stay open,
 * nothing comes back). /health and the API answer 503 within the deadline and
 * recover by themselves when the database is back, without restarting the app.
 */
import { spawn } from "node:child_process";
import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "../../server/db/pglite.js";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { openPostgres, type PostgresTimeouts } from "../../server/db/open.js";
import { FIXTURE } from "../helpers/catalog.js";
import { migratedThroughPostgresJs } from "../helpers/pgsocket.js";
import { begins, expectLateRequestTurnedAway, expectWholeOrTurnedAway, expectWholePage, parseLog } from "../helpers/shutdown.js";
import { isDatabaseUnavailable } from "../../server/db/errors.js";
import { sql } from "drizzle-orm";
import { firstKey, READY } from "../helpers/server.js";

/** Short deadlines so the file runs in seconds; production values are SERVER_TIMEOUTS. */
const TIMEOUTS: PostgresTimeouts = { connectMs: 1_000, queryMs: 1_000 };
/** What "within a bounded time" means here: the deadline plus the health check's and scheduling slack. */
const BOUND_MS = TIMEOUTS.queryMs + TIMEOUTS.connectMs + 1_000;

/** A TCP relay to the database that can go silent: it keeps every connection open and drops all bytes. */
interface Relay {
  port: number;
  /** How many times a client asked for postgres.js's array types (it does on connecting, unless told not to). */
  typeFetches: number;
  /** Whether a connection that asks for the array types goes silent from then on. */
  stallTypeFetches: boolean;
  silence(): void;
  /** Forwards again; connections opened while silent are cut, as a recovering network would. */
  restore(): void;
  close(): Promise<void>;
}

async function startRelay(target: () => { host: string; port: number }): Promise<Relay> {
  let silent = false;
  let stalled: Socket | null = null;
  const pairs = new Set<{ client: Socket; upstream: Socket | null }>();
  const server: Server = createServer((client) => {
    const pair: { client: Socket; upstream: Socket | null } = { client, upstream: null };
    pairs.add(pair);
    client.on("close", () => {
      pairs.delete(pair);
      pair.upstream?.destroy();
    });
    client.on("error", () => client.destroy());
    if (silent) return; // accepted, then nothing: a hung server
    const { host, port } = target();
    const upstream = connect(port, host);
    pair.upstream = upstream;
    upstream.on("error", () => client.destroy());
    upstream.on("close", () => client.destroy());
    upstream.on("data", (chunk) => silent || stalled === client || client.write(chunk));
    client.on("data", (chunk) => {
      if (chunk.includes("typarray")) {
        relay.typeFetches++;
        if (relay.stallTypeFetches) stalled = client;
      }
      if (!silent && stalled !== client) upstream.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const relay: Relay = {
    port: (server.address() as AddressInfo).port,
    typeFetches: 0,
    stallTypeFetches: false,
    silence: () => {
      silent = true;
    },
    restore: () => {
      silent = false;
      for (const pair of pairs) if (!pair.upstream) pair.client.destroy();
    },
    close: () => {
      for (const pair of pairs) pair.client.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return relay;
}

let pglite: PGlite;
let pgServer: PGLiteSocketServer;
let pgPort: number;
let relay: Relay;
let t: TestApp;

beforeAll(async () => {
  pglite = await PGlite.create({ loadDataDir: await migratedThroughPostgresJs(), extensions: PGLITE_EXTENSIONS });
  // One pooled connection plus the migration's; pglite-socket runs messages of different connections interleaved.
  pgServer = new PGLiteSocketServer({ db: pglite, host: "127.0.0.1", port: 0, maxConnections: 4 });
  await pgServer.start();
  pgPort = Number(pgServer.getServerConn().split(":")[1]);
  relay = await startRelay(() => ({ host: "127.0.0.1", port: pgPort }));
  const database = openPostgres({ url: `postgres://postgres@127.0.0.1:${relay.port}/postgres`, max: 1, timeouts: TIMEOUTS });
  t = await createTestApp({ database });
});

afterAll(async () => {
  await t?.close();
  await relay?.close();
  await pgServer?.stop();
  await pglite?.close();
});

const SEARCH = "/api/v1/products/search?q=tent";
const BY_URL = `/api/v1/products?url=${encodeURIComponent(FIXTURE[0]!.url)}`;
/** raw_data is never cached, so this one always reaches the database. */
const BY_URL_RAW = `${BY_URL}&include_raw_data=true`;
const TRPC = `/trpc/products.search?input=${encodeURIComponent(JSON.stringify({ q: "tent" }))}`;

async function timed(url: string, key = t.key) {
  const started = performance.now();
  const response = await t.app.inject({ url, headers: { authorization: key } });
  return { status: response.statusCode, body: response.json() as Record<string, unknown>, ms: performance.now() - started, response };
}

/** Every endpoint answers 503 `unavailable`, each within the bound. */
async function expectUnavailable() {
  const health = await timed("/health");
  expect(health.status).toBe(503);
  expect(health.body).toMatchObject({ status: "unavailable", database: { kind: "postgres", ok: false }, products: null });
  expect(health.ms).toBeLessThan(BOUND_MS);
  for (const url of [SEARCH, BY_URL_RAW, "/v1/products/pdp_missing"]) {
    const answer = await timed(url);
    expect(answer.status, url).toBe(503);
    expect(answer.response.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({ code: "unavailable", status: 503 });
    expect(answer.ms, url).toBeLessThan(BOUND_MS);
  }
  const trpc = await timed(TRPC);
  expect(trpc.status).toBe(503);
  expect(trpc.body).toMatchObject({ error: { data: { code: "unavailable", httpStatus: 503 } } });
  expect(trpc.ms).toBeLessThan(BOUND_MS);
}

/** Polls until search and /health succeed again; returns how long that took. */
async function expectRecovery(): Promise<number> {
  const started = performance.now();
  for (;;) {
    const [health, search] = [await timed("/health"), await timed(SEARCH)];
    if (health.status === 200 && search.status === 200) break;
    expect(performance.now() - started, `still ${health.status}/${search.status}`).toBeLessThan(10_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const recovered = performance.now() - started;
  expect((await timed(BY_URL)).status).toBe(200);
  expect((await timed(TRPC)).status).toBe(200);
  expect((await timed("/health")).body).toMatchObject({ status: "ok", products: FIXTURE.length });
  return recovered;
}

describe("postgres.js path: the database stops answering, then comes back", () => {
  it("serves normally to begin with", async () => {
    expect((await timed("/health")).status).toBe(200);
    expect((await timed(SEARCH)).status).toBe(200);
  });

  it("database server stopped: 503 within the bound; started again on the same port: recovers without a restart", async () => {
    await pgServer.stop();
    await expectUnavailable();
    // A key the server has not cached yet cannot be checked either: 503, not 401.
    expect((await timed(SEARCH, `pcl_test_${"2".repeat(46)}`)).status).toBe(503);
    await pgServer.start();
    expect(pgServer.getServerConn()).toBe(`127.0.0.1:${pgPort}`);
    expect(await expectRecovery()).toBeLessThan(3_000);
  });

  it("database silent (connections open, no answers): 503 within the bound, even under concurrent load; recovers", async () => {
    expect((await timed(BY_URL)).status).toBe(200);
    relay.silence();
    await expectUnavailable();
    // A product read before the outage is still served from the product cache.
    expect((await timed(BY_URL)).status).toBe(200);
    // Requests queued behind a wedged pool must not wait for each other's deadlines.
    const started = performance.now();
    const burst = await Promise.all(Array.from({ length: 12 }, () => timed(SEARCH)));
    expect(burst.map((answer) => answer.status)).toEqual(Array(12).fill(503));
    expect(performance.now() - started).toBeLessThan(BOUND_MS);
    relay.restore();
    expect(await expectRecovery()).toBeLessThan(3_000);
  });

  it("a transaction on a silent database fails within the deadline, whether it is starting or under way", async () => {
    const fails = async (work: Promise<unknown>) => {
      const started = performance.now();
      const error = await work.then(
        () => null,
        (e: unknown) => e,
      );
      expect(isDatabaseUnavailable(error), String(error)).toBe(true);
      expect(performance.now() - started).toBeLessThan(TIMEOUTS.queryMs + 500);
    };
    relay.silence();
    await fails(t.database.db.transaction((tx) => tx.execute(sql`select 1`)));
    relay.restore();
    await expectRecovery();
    await fails(
      t.database.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        relay.silence();
        await tx.execute(sql`select 2`);
      }),
    );
    relay.restore();
    await expectRecovery();
  });

  it("a pool replaced at a deadline does not fetch the array types again, so no such fetch is left for a deadline to cut", async () => {
    // postgres.js drops the promise of that fetch: a connection destroyed during it would reject it unhandled, ending
    // the process (porsager/postgres#1192). Here every fetch would stall, and the pool be replaced at its deadline.
    const fetched = relay.typeFetches;
    expect(fetched, "the relay recognises postgres.js's type fetch").toBeGreaterThan(0);
    relay.stallTypeFetches = true;
    try {
      relay.silence();
      expect((await timed(SEARCH)).status).toBe(503);
      relay.restore();
      await expectRecovery();
      expect(relay.typeFetches).toBe(fetched);
      // The replacement parses arrays with the types its predecessor fetched.
      expect(await t.database.db.execute(sql`select array['a','b']::text[] as a`)).toEqual([{ a: ["a", "b"] }]);
    } finally {
      relay.stallTypeFetches = false;
    }
  });

  it("answers normally afterwards, with the same data", async () => {
    const search = await timed("/api/v1/products/search?q=cast%20iron%20pan&limit=2");
    expect(search.status).toBe(200);
    expect((search.body.products as { pdp: { name: string } }[])[0]!.pdp.name).toBe("Cast Iron Skillet 26 cm");
  });
});

/**
 * SIGTERM on the postgres.js path, where requests wait on the database and so
 * are truly concurrent: the signal lands while several are in flight.
 */
describe("SIGTERM with several requests in flight (real server process, DATABASE_URL)", () => {
  it("answers every request it has begun, refuses new connections, closes the pool and exits 0", { timeout: 120_000 }, async () => {
    const db = await PGlite.create({ loadDataDir: await migratedThroughPostgresJs(), extensions: PGLITE_EXTENSIONS });
    const socketServer = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 4 });
    await socketServer.start();
    const probe = createServer();
    const port = await new Promise<number>((resolve) => probe.listen(0, "127.0.0.1", () => resolve((probe.address() as AddressInfo).port)));
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
      env: {
        ...process.env,
        DATABASE_URL: `postgres://postgres@${socketServer.getServerConn()}/postgres`,
        // One connection: pglite-socket interleaves the messages of concurrent connections on its one session.
        DATABASE_POOL_SIZE: "1",
        // One process, for the same reason (tests/integration/cluster.test.ts drains a cluster).
        WEB_CONCURRENCY: "1",
        PORT: String(port),
        SAMPLE_CATALOG: "true",
        RATE_LIMIT_PER_MINUTE: "1000000",
        LOG_LEVEL: "debug", // "incoming request" lines show which requests were in flight
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const started = performance.now();
      while (!output.includes(READY)) {
        if (child.exitCode !== null) throw new Error(`server exited:\n${output}`);
        if (performance.now() - started > 90_000) throw new Error(`server did not start:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const key = firstKey(output);
      const base = `http://127.0.0.1:${port}`;
      const marker = output.length;
      const concurrent = 8;
      const requests = Array.from({ length: concurrent }, (_, i) =>
        fetch(`${base}/api/v1/products/search?q=${encodeURIComponent(["tent", "kettle", "jacket", "headphones"][i % 4]!)}%20${i}&limit=100`, {
          headers: { authorization: key, "accept-encoding": "identity" },
        }).then(
          async (response) => ({ i, status: response.status, text: await response.text() }),
          (error: unknown) => ({ i, status: 0, text: String((error as Error).cause ?? error) }),
        ),
      );
      // Several have begun (they wait on the database, so they overlap) before the signal.
      while (parseLog(output.slice(marker)).filter(begins("/products/search")).length < 3) await new Promise((resolve) => setTimeout(resolve, 2));
      child.kill("SIGTERM");
      while (!output.slice(marker).includes("shutting down") && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 2));
      await expectLateRequestTurnedAway(`${base}/health`, key);

      const answers = await Promise.all(requests);
      const code = await exited;
      expect(code, output).toBe(0);
      const log = parseLog(output.slice(marker));
      const shutdownAt = log.findIndex((entry) => entry.msg.startsWith("shutting down"));
      const begun = log.slice(0, shutdownAt).filter(begins("/products/search"));
      const finishedAfter = new Set(
        log
          .slice(shutdownAt)
          .filter((entry) => entry.msg === "request completed")
          .map((entry) => entry.reqId),
      );
      // Really in flight: begun before the signal, answered after it.
      expect(begun.filter((entry) => finishedAfter.has(entry.reqId)).length).toBeGreaterThanOrEqual(2);
      for (const entry of begun) {
        const answer = answers[Number(/%20(\d+)&/.exec(entry.req!.url)![1])]!;
        expectWholePage(answer, 100);
      }
      expectWholeOrTurnedAway(answers, 100);
      expect(log.at(-1)?.msg).toBe("shut down");
      console.log(`SIGTERM (postgres.js): ${begun.length} begun before the signal, answers ${answers.map((a) => a.status).join(",")}`);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      await socketServer.stop();
      await db.close();
    }
  });
});
