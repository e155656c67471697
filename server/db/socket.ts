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
 *
 * Meanwhile the server's own queries wait, so a client keeps the lock for a
 * bounded time only: one that still holds it `holdLimitMs` after taking it is
 * cut off (its transaction rolled back, the lock released, each statement it
 * sends afterwards refused with an error saying why) and the server warns once.
 * The check runs between the client's batches: a statement already running
 * inside PGlite cannot be interrupted, and one that ends the transaction in
 * time (a COMMIT) is not cut off.
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

/**
 * The default bound, and not a setting: nothing the CLI does holds the lock
 * that long (imports and reindexing commit a batch of records at a time, well
 * under a second), and every request the server gets meanwhile waits, so a
 * longer bound would only let a stuck client stall the server longer.
 */
export const SOCKET_HOLD_LIMIT_MS = 30_000;

function errorResponse(code: string, text: string): Uint8Array {
  const fields = Buffer.from(`SERROR\0VERROR\0C${code}\0M${text}\0\0`);
  const message = Buffer.alloc(5 + fields.length);
  message.write("E", 0);
  message.writeInt32BE(4 + fields.length, 1);
  fields.copy(message, 5);
  return message;
}

/** ReadyForQuery, idle: the answer that ends each statement. */
const READY_IDLE = new Uint8Array([0x5a, 0, 0, 0, 5, 0x49]);

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
  /** Counts the times this client took the lock, so a deadline only acts on the hold it was set for. */
  #holds = 0;
  #deadline: NodeJS.Timeout | undefined;
  /** Once cut off, nothing more from this client runs, nor reaches it: each of its statements is answered with this error. */
  #cutOff: Uint8Array | null = null;
  /** Whether the statement under way has had its error already (after a Flush, its Sync gets only ReadyForQuery). */
  #refused = false;

  constructor(
    private readonly db: PGlite,
    private readonly socket: Socket,
    private readonly options: Required<SocketOptions>,
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
            if (data.length > 0 && this.#cutOff === null && this.socket.writable) this.socket.write(data);
          },
        });
      }
    });
  }

  /** Runs a batch, then keeps the lock while the client is mid-statement or inside a transaction. */
  async #run(batch: readonly Uint8Array[], complete: boolean): Promise<void> {
    if (this.#cutOff) {
      this.#refuse(this.#cutOff, complete);
      return;
    }
    const done = () => complete && !this.db.isInTransaction();
    if (this.#releaseLock) {
      await this.#exec(batch);
      if (done()) this.#release();
      return;
    }
    await new Promise<void>((resolve, reject) => {
      void this.db
        ._runExclusiveTransaction(async () => {
          const hold = ++this.#holds;
          const takenAt = performance.now();
          // Queued behind whatever this client has sent so far, so it runs between batches.
          this.#deadline = setTimeout(() => this.#enqueue(() => this.#enforceDeadline(hold, takenAt)), this.options.holdLimitMs).unref();
          try {
            await this.#exec(batch);
          } catch (error) {
            clearTimeout(this.#deadline);
            throw error;
          }
          if (done()) {
            clearTimeout(this.#deadline);
            return resolve();
          }
          await new Promise<void>((release) => {
            this.#releaseLock = release;
            resolve();
          });
        })
        .catch(reject);
    });
  }

  #release(): void {
    clearTimeout(this.#deadline);
    const release = this.#releaseLock;
    this.#releaseLock = null;
    release?.();
  }

  /** Ends the client's statement and transaction, with raw messages: `exec()` would wait for the very lock this connection holds. */
  async #rollBackAndRelease(): Promise<void> {
    try {
      await this.#exec([SYNC]);
      if (this.db.isInTransaction()) await this.#exec([simpleQuery("ROLLBACK")]);
    } finally {
      this.#release();
    }
  }

  /** A client that vanished mid-statement or mid-transaction must not leave the lock held. */
  async #abandon(): Promise<void> {
    if (this.#releaseLock) await this.#rollBackAndRelease();
  }

  /**
   * Answers a statement with an error, as Postgres does: the error once, then
   * ReadyForQuery at the statement's end. The connection stays open, refusing
   * every statement, until the client leaves: closing it would lose the error,
   * because postgres.js reports a statement's error only at ReadyForQuery, and
   * a transaction's error only once its ROLLBACK has been answered.
   */
  #refuse(error: Uint8Array, complete: boolean): void {
    if (!this.#refused) this.socket.write(error);
    this.#refused = !complete;
    if (complete) this.socket.write(READY_IDLE);
  }

  /**
   * The deadline of hold number `hold`: cuts the client off if it still keeps
   * the lock from then. It learns why at its next statement: an error sent
   * while it waits for no answer would be dropped.
   */
  async #enforceDeadline(hold: number, takenAt: number): Promise<void> {
    if (!this.#releaseLock || hold !== this.#holds) return;
    const heldMs = Math.round(performance.now() - takenAt);
    this.#cutOff = errorResponse(
      "25P04", // transaction_timeout
      `this connection was cut off: it kept the catalog server's embedded database to itself for ${heldMs} ms, ` +
        `more than the ${this.options.holdLimitMs} ms allowed while the server waits; its transaction was rolled back`,
    );
    await this.#rollBackAndRelease();
    this.options.warn(
      `cut off a client of the data dir's socket that kept the database locked for ${heldMs} ms ` +
        `(limit ${this.options.holdLimitMs} ms); rolled back its open transaction, and the server's queries resume`,
    );
  }
}

export interface SocketBridge {
  /** The TCP port it listens on (tests and benchmarks give it to postgres.js as DATABASE_URL); null on a unix socket. */
  readonly port: number | null;
  close(): Promise<void>;
}

export interface SocketOptions {
  /** How long one client may keep the lock, from taking it; default SOCKET_HOLD_LIMIT_MS. */
  holdLimitMs?: number;
  /** Told when a client is cut off. */
  warn: (message: string) => void;
}

/**
 * On a unix socket (`path`: the data dir's, for the CLI) or a TCP address: several processes on one PGlite over
 * postgres.js, each connection's statements whole (tests and benchmarks of WEB_CONCURRENCY, see tests/helpers/pgsocket.ts).
 */
export async function serveOnSocket(db: PGlite, at: string | { host: string; port: number }, options: SocketOptions): Promise<SocketBridge> {
  const settings = { holdLimitMs: options.holdLimitMs ?? SOCKET_HOLD_LIMIT_MS, warn: options.warn };
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    new Connection(db, socket, settings);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    if (typeof at === "string") server.listen(at, () => resolve());
    else server.listen(at.port, at.host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address !== null ? address.port : null,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
