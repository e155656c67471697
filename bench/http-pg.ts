/**
 * The stand-in for a real Postgres in npm run bench:http: a benchmark catalog's
 * PGlite data dir served over the Postgres wire protocol by
 * @electric-sql/pglite-socket on loopback, in its own process (as a database
 * server would be). The API server reaches it with postgres.js and a pool of
 * one connection: pglite-socket runs each protocol message under PGlite's
 * lock alone, and PGlite is one backend session, so a second connection's
 * statements could land between another's Parse and Bind (see
 * server/db/socket.ts and tests/helpers/pgsocket.ts). With --bridge, the
 * server's own bridge (server/db/socket.ts) serves it instead, which runs each
 * connection's statements whole, so several server processes can share it
 * (WEB_CONCURRENCY). Prints its port on stdout.
 */
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "../server/db/pglite.js";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { serveOnSocket } from "../server/db/socket.js";

const [dataDir, flag] = process.argv.slice(2);
if (!dataDir) throw new Error("usage: http-pg.ts DATA_DIR [--bridge]");
const db = await PGlite.create({ dataDir, extensions: PGLITE_EXTENSIONS });
let stop: () => Promise<void>;
if (flag === "--bridge") {
  const bridge = await serveOnSocket(db, { host: "127.0.0.1", port: 0 }, { warn: (message) => process.stderr.write(`${message}\n`) });
  process.stdout.write(`${bridge.port}\n`);
  stop = () => bridge.close();
} else {
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 4 });
  await server.start();
  process.stdout.write(`${server.getServerConn().split(":").pop()}\n`);
  stop = () => server.stop();
}
process.on(
  "SIGTERM",
  () =>
    void stop()
      .then(() => db.close())
      .then(() => process.exit(0)),
);
