/**
 * Serves an in-process PGlite to other processes (the operator CLI) over a
 * unix socket, speaking the Postgres wire protocol.
 *
 * Why not @electric-sql/pglite-socket's server: it runs each protocol message
 * under PGlite's query lock alone, so the server's own queries (and other
 * connections) can run between a client's Parse and Bind, or inside its
 * transaction: PGlite is one backend session, so the client's unnamed
 * statement is clobbered or its transaction shared. Here a client's messages
 * run under PGlite's transaction lock (the same lock `query()` and
 * `transaction()` take), and the client keeps that lock until it is between
 * statements and outside a transaction: across a Flush (postgres.js sends
 * Parse/Describe/Flush, then Bind/Execute/Sync) and across BEGIN … COMMIT.
 */
import { createServer, type Server, type Socket } from "node:net";
import type { PGlite } from "@electric-sql/pglite";

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
/** Messages after which the client waits for an answer: Sync, simple Query, Flush. */
const BATCH_END = new Set(["S", "Q", "H"]);
/** After these the client's statement is complete (Flush leaves it half-way). */
const STATEMENT_END = new Set(["S", "Q"]);
const TERMINATE = "X";

const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);

function simpleQuery(sql: string): Uint8Array {
  const text = Buffer.from(`${sql}\0`);
  const message = Buffer.alloc(5 + text.length);
  message.write("Q", 0);
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  return message;
}

/** One client connection: splits the byte stream into messages and runs them batch by batch. */
class Connection {
  #buffer = Buffer.alloc(0);
  #started = false;
  #pending: Uint8Array[] = [];
  #chain: Promise<void> = Promise.resolve();
  /** Set while this client holds the transaction lock across batches. */
  #releaseLock: (() => void) | null = null;

  constructor(
    private readonly db: PGlite,
    private readonly socket: Socket,
  ) {
    socket.setNoDelay(true);
    socket.on("data", (chunk) => this.#receive(chunk));
    socket.on("close", () => this.#enqueue(() => this.#abandon()));
    socket.on("error", () => socket.destroy());
  }

  #receive(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      if (!this.#started) {
        if (this.#buffer.length < 8) return;
        const length = this.#buffer.readInt32BE(0);
        if (this.#buffer.length < length) return;
        const code = this.#buffer.readInt32BE(4);
        const message = this.#take(length);
        if (code === SSL_REQUEST) this.socket.write("N");
        else if (code === CANCEL_REQUEST) this.socket.end();
        else {
          this.#started = true;
          this.#enqueue(() => this.#run([message], true));
        }
        continue;
      }
      if (this.#buffer.length < 5) return;
      const length = 1 + this.#buffer.readInt32BE(1);
      if (this.#buffer.length < length) return;
      const type = String.fromCharCode(this.#buffer[0]!);
      const message = this.#take(length);
      if (type === TERMINATE) {
        this.socket.end();
        return;
      }
      this.#pending.push(message);
      if (BATCH_END.has(type)) {
        const batch = this.#pending;
        this.#pending = [];
        const complete = STATEMENT_END.has(type);
        this.#enqueue(() => this.#run(batch, complete));
      }
    }
  }

  #take(length: number): Uint8Array {
    const message = new Uint8Array(this.#buffer.subarray(0, length));
    this.#buffer = this.#buffer.subarray(length);
    return message;
  }

  #enqueue(work: () => Promise<void>): void {
    this.#chain = this.#chain.then(work).catch(() => {
      this.socket.destroy();
    });
  }

  async #exec(batch: readonly Uint8Array[]): Promise<void> {
    await this.db.runExclusive(async () => {
      for (const message of batch) {
        await this.db.execProtocolRawStream(message, {
          onRawData: (data) => {
            if (data.length > 0 && this.socket.writable) this.socket.write(data);
          },
        });
      }
    });
  }

  /** Runs a batch, then keeps the lock while the client is mid-statement or inside a transaction. */
  async #run(batch: readonly Uint8Array[], complete: boolean): Promise<void> {
    const done = () => complete && !this.db.isInTransaction();
    if (this.#releaseLock) {
      await this.#exec(batch);
      if (done()) this.#release();
      return;
    }
    await new Promise<void>((resolve, reject) => {
      void this.db
        ._runExclusiveTransaction(async () => {
          await this.#exec(batch);
          if (done()) return resolve();
          await new Promise<void>((release) => {
            this.#releaseLock = release;
            resolve();
          });
        })
        .catch(reject);
    });
  }

  #release(): void {
    const release = this.#releaseLock;
    this.#releaseLock = null;
    release?.();
  }

  /** A client that vanished mid-statement or mid-transaction must not leave the lock held. */
  async #abandon(): Promise<void> {
    if (!this.#releaseLock) return;
    try {
      // Raw messages: `exec()` would wait for the very lock this connection holds.
      await this.#exec([SYNC]);
      if (this.db.isInTransaction()) await this.#exec([simpleQuery("ROLLBACK")]);
    } finally {
      this.#release();
    }
  }
}

export interface SocketBridge {
  close(): Promise<void>;
}

export async function serveOnSocket(db: PGlite, path: string): Promise<SocketBridge> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    new Connection(db, socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve());
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
