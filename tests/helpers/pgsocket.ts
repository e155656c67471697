/**
 * The postgres.js path against a real Postgres protocol peer: PGlite (with
 * pgvector) served over @electric-sql/pglite-socket on a loopback port.
 */
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "../../server/db/pglite.js";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { serveOnSocket } from "../../server/db/socket.js";
import { openPostgres } from "../../server/db/open.js";

export interface SocketPostgres {
  url: string;
  close(): Promise<void>;
}

/**
 * PGlite over pglite-socket, migrated as the postgres.js path migrates (a copy of the worker's template, so the
 * client's migrator finds nothing to do), or `empty`, for a test of migrating through postgres.js.
 */
export async function startSocketPostgres(poolSize: number, options: { empty?: boolean } = {}): Promise<SocketPostgres> {
  const loadDataDir = options.empty ? undefined : await migratedThroughPostgresJs();
  return serve(await PGlite.create({ ...(loadDataDir ? { loadDataDir } : {}), extensions: PGLITE_EXTENSIONS }), poolSize);
}

async function serve(db: PGlite, poolSize: number): Promise<SocketPostgres> {
  // The socket server takes one connection unless told otherwise; postgres.js opens up to its pool size.
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: poolSize + 2 });
  await server.start();
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}

let template: Promise<Blob> | null = null;

/**
 * An empty catalog migrated through postgres.js over the socket, as PGlite dumps its data dir: made once per worker,
 * as migratedPglite (tests/helpers/database.ts) is for the embedded path. Not the same bytes as that one: the
 * postgres.js path stores half-precision vectors (server/db/halfvec.ts), the embedded one full precision.
 */
export function migratedThroughPostgresJs(): Promise<Blob> {
  template ??= (async () => {
    const db = await PGlite.create({ extensions: PGLITE_EXTENSIONS });
    const pg = await serve(db, 1);
    try {
      const handle = openPostgres({ url: pg.url, max: 1 });
      try {
        await handle.migrate();
      } finally {
        await handle.close();
      }
      await db.exec("CHECKPOINT");
      return await db.dumpDataDir("none");
    } finally {
      await pg.close();
    }
  })();
  return template;
}

/**
 * PGlite behind the server's own bridge (server/db/socket.ts) on a loopback port, for several server processes at
 * once (WEB_CONCURRENCY): pglite-socket runs each protocol message alone, so one connection's statements can land
 * between another's Parse and Bind; the bridge runs each connection's statements whole. Connections are not capped.
 */
export async function startSharedPostgres(): Promise<SocketPostgres> {
  const db = await PGlite.create({ extensions: PGLITE_EXTENSIONS });
  const bridge = await serveOnSocket(db, { host: "127.0.0.1", port: 0 }, { warn: (message) => process.stderr.write(`${message}\n`) });
  return {
    url: `postgres://postgres@127.0.0.1:${bridge.port}/postgres`,
    close: async () => {
      await bridge.close();
      await db.close();
    },
  };
}
