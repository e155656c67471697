/**
 * The postgres.js path against a real Postgres protocol peer: PGlite (with
 * pgvector) served over @electric-sql/pglite-socket on a loopback port.
 */
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "../../server/db/pglite.js";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { serveOnSocket } from "../../server/db/socket.js";

export interface SocketPostgres {
  url: string;
  close(): Promise<void>;
}

export async function startSocketPostgres(poolSize: number): Promise<SocketPostgres> {
  const db = await PGlite.create({ extensions: PGLITE_EXTENSIONS });
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
