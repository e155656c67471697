/**
 * One HTTP(S) GET. Built on node:http(s) rather than fetch(): its `lookup`
 * hook is where every address a connection goes to is checked (address.ts),
 * which fetch() offers only through undici's own Agent, and its socket events
 * give the three deadlines a crawler needs (connect, first byte, whole body).
 * Bodies are decompressed here and capped as they arrive, so an oversized or
 * endless body is cut off, not held. Redirects are not followed here: the
 * fetcher follows them, checking each hop (fetcher.ts).
 */
import { type LookupAddress, lookup as dnsLookup } from "node:dns";
import http, { type IncomingHttpHeaders } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { overCap } from "../ingest/limits.js";
import { addressGuard, refusal } from "./address.js";

export interface HttpClientOptions {
  userAgent: string;
  /** FETCH_ALLOW_PRIVATE: connect to loopback addresses too (and no other refused kind). */
  allowPrivate: boolean;
  /** FETCH_ALLOW_NETWORKS: networks (CIDRs) connected to whatever kind of address they hold. */
  allowNetworks?: readonly string[];
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  bodyTimeoutMs: number;
}

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** Null when the body was not read (see `HttpRequest.read`). */
  body: Buffer | null;
}

/** What to do with an answer's body, decided from its status and headers. */
export type BodyDecision = "read" | "skip" | { refuse: string };

export interface HttpRequest {
  headers?: Record<string, string>;
  /** The most bytes a body may have once decompressed, and the setting that says so (for the message). */
  maxBytes: number;
  maxBytesSetting: string;
  read: (status: number, headers: IncomingHttpHeaders) => BodyDecision;
  signal?: AbortSignal;
}

/**
 * Why a fetch failed, for a caller that answers for it (a live lookup: 504, 404 or 502): `timeout`, no answer in
 * time (a deadline, or the caller's signal); `page`, an answer that is no page for us (its type, its size, a 4xx);
 * `upstream`, the site or the network failed (a reset, 5xx or 429 after the retries, a redirect loop).
 */
export type FetchFailure = "timeout" | "page" | "upstream";

/** A request that did not get an answer. `refused`: our own policy said no (an address); `failed`: the network or the server, and why. */
export class FetchError extends Error {
  override readonly name = "FetchError";
  constructor(
    message: string,
    readonly kind: "refused" | "failed",
    readonly failure: FetchFailure = "upstream",
  ) {
    super(message);
  }
}

export interface HttpClient {
  get(url: URL, request: HttpRequest): Promise<HttpAnswer>;
  /** Closes the kept-alive connections. */
  close(): void;
}

/** A connection refused by the address check, told apart from the network's own errors. */
class RefusedAddressError extends Error {
  override readonly name = "RefusedAddressError";
}

function describeNetworkError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `host not found (${error.code})`;
    case "ECONNREFUSED":
      return "connection refused";
    case "ECONNRESET":
    case "EPIPE":
      return "connection reset by the server";
    case "ETIMEDOUT":
      return "connection timed out";
    default:
      return error.code ? `${error.code}: ${error.message}` : error.message;
  }
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const agents = {
    "http:": new http.Agent({ keepAlive: true }),
    "https:": new https.Agent({ keepAlive: true }),
  };

  const refused = addressGuard({ allowLoopback: options.allowPrivate, allowNetworks: options.allowNetworks ?? [] });

  /** DNS as usual, then only addresses the policy allows; none allowed is a refusal naming the first. */
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const allowed = addresses.filter((entry) => refused(entry.address) === undefined);
      const first = allowed[0];
      if (!first) {
        const denied = addresses[0];
        const reason = denied ? refusal(hostname, denied.address, refused(denied.address) ?? "refused") : `${hostname} has no address`;
        return callback(new RefusedAddressError(reason), "", 0);
      }
      if (lookupOptions.all) callback(null, allowed);
      else callback(null, first.address, first.family);
    });
  };

  function get(url: URL, request: HttpRequest): Promise<HttpAnswer> {
    const literal = url.hostname.replace(/^\[|\]$/g, "");
    if (isIP(literal) !== 0) {
      const kind = refused(literal);
      if (kind) return Promise.reject(new FetchError(refusal(literal, literal, kind), "refused"));
    }
    const module = url.protocol === "https:" ? https : http;
    const agent = url.protocol === "https:" ? agents["https:"] : agents["http:"];
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.signal?.removeEventListener("abort", onAbort);
        outcome();
      };
      const fail = (error: Error) =>
        finish(() => {
          req.destroy();
          reject(error);
        });
      const deadline = (ms: number, what: string) => {
        clearTimeout(timer);
        timer = setTimeout(() => fail(new FetchError(`${what} within ${ms} ms`, "failed", "timeout")), ms);
      };
      const onAbort = () => fail(new FetchError("stopped: the deadline passed", "failed", "timeout"));

      const req = module.request(url, {
        method: "GET",
        agent,
        lookup,
        headers: { "user-agent": options.userAgent, "accept-encoding": "gzip, deflate, br", ...request.headers },
      });
      deadline(options.connectTimeoutMs, "no connection");
      req.on("socket", (socket) => {
        const connected = () => deadline(options.firstByteTimeoutMs, "no answer");
        if (!socket.connecting) connected();
        else socket.once(url.protocol === "https:" ? "secureConnect" : "connect", connected);
      });
      req.on("error", (error: NodeJS.ErrnoException) => {
        if (error instanceof RefusedAddressError) fail(new FetchError(error.message, "refused"));
        else fail(new FetchError(describeNetworkError(error), "failed"));
      });
      req.on("response", (res) => {
        deadline(options.bodyTimeoutMs, "body not received in full");
        const status = res.statusCode ?? 0;
        const decision = request.read(status, res.headers);
        if (decision === "skip") {
          // Nothing to read: an empty body drains and keeps the connection; any other is cut off with it.
          if (status === 304 || status === 204 || res.headers["content-length"] === "0") res.resume();
          else res.destroy();
          return finish(() => resolve({ status, headers: res.headers, body: null }));
        }
        if (decision !== "read") return fail(new FetchError(decision.refuse, "failed", "page"));
        const tooLarge = (size?: number) => new FetchError(overCap("the answer", request.maxBytesSetting, request.maxBytes, size), "failed", "page");
        const declared = Number(res.headers["content-length"]);
        const encoding = String(res.headers["content-encoding"] ?? "identity")
          .trim()
          .toLowerCase();
        if ((encoding === "identity" || encoding === "") && declared > request.maxBytes) return fail(tooLarge(declared));
        let body: Readable = res;
        if (encoding === "gzip" || encoding === "x-gzip") body = res.pipe(createGunzip());
        else if (encoding === "deflate") body = res.pipe(createInflate());
        else if (encoding === "br") body = res.pipe(createBrotliDecompress());
        else if (encoding !== "identity" && encoding !== "")
          return fail(new FetchError(`content-encoding ${encoding} is not supported`, "failed", "page"));
        const chunks: Buffer[] = [];
        let size = 0;
        body.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > request.maxBytes) {
            body.destroy();
            fail(tooLarge());
          } else chunks.push(chunk);
        });
        body.on("error", (error: Error) => fail(new FetchError(`the body could not be read: ${error.message}`, "failed")));
        res.on("close", () => {
          if (!res.complete) fail(new FetchError("the server closed the connection before the body ended", "failed"));
        });
        body.on("end", () => finish(() => resolve({ status, headers: res.headers, body: Buffer.concat(chunks) })));
      });
      if (request.signal?.aborted) return onAbort();
      request.signal?.addEventListener("abort", onAbort, { once: true });
      req.end();
    });
  }

  return {
    get,
    close() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}
