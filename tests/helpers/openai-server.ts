/**
 * A real HTTP server on 127.0.0.1 that speaks enough of the OpenAI protocol
 * (chat completions, embeddings) for the real `openai` client to talk to it.
 * Each test scripts the answers with a handler and inspects what was sent.
 *
 *   const { server, client } = await withOpenAiServer();
 *   server.onChat((request) => rankedReply(["c2", "c1"]));
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { afterAll, beforeEach } from "vitest";
import { z } from "zod";

export interface RecordedRequest {
  method: string;
  /** Path without the `/v1` prefix, e.g. `/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (`null` when it was not JSON). */
  body: unknown;
  /** True when the client hung up before the answer was written (e.g. it aborted a slow call). */
  abandoned: boolean;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON; ignored when `text` is given. */
  json?: unknown;
  /** Sent verbatim as the body. */
  text?: string;
  /** Waits this long before answering (the wait ends early if the client hangs up). */
  delayMs?: number;
  /** Sends the status and headers at once, then waits this long before the body. */
  bodyDelayMs?: number;
}

export type Handler<B> = (body: B, request: RecordedRequest) => Reply | Promise<Reply>;

/** The parts of a chat-completions body the tests look at. */
const ChatBodySchema = z.object({
  model: z.string(),
  messages: z.array(z.object({ role: z.string(), content: z.string() })),
  response_format: z.unknown().optional(),
});
export type ChatBody = z.infer<typeof ChatBodySchema>;

const EmbeddingsBodySchema = z.object({
  model: z.string(),
  input: z.union([z.string(), z.array(z.string())]),
  dimensions: z.number().int().positive().optional(),
  encoding_format: z.enum(["float", "base64"]).optional(),
});
export type EmbeddingsBody = z.infer<typeof EmbeddingsBodySchema>;

export interface OpenAiServer {
  /** `http://127.0.0.1:PORT/v1`, for `new OpenAI({ baseURL })`. */
  baseURL: string;
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
  /** Chat requests only. */
  chatRequests(): RecordedRequest[];
  embeddingRequests(): RecordedRequest[];
  onChat(handler: Handler<ChatBody>): void;
  onEmbeddings(handler: Handler<EmbeddingsBody>): void;
  /** Handlers used once each, in order, before falling back to the `onChat` handler. */
  queueChat(...replies: Array<Reply | Handler<ChatBody>>): void;
  queueEmbeddings(...replies: Array<Reply | Handler<EmbeddingsBody>>): void;
  /** Forgets recorded requests and queued replies; restores the default handlers. */
  reset(): void;
  close(): Promise<void>;
}

// ---------------------------------------------------------------- replies

/** A chat completion whose message content is `content`. */
export function chatReply(content: string, opts: { model?: string; finishReason?: string } = {}): Reply {
  return {
    json: {
      id: "chatcmpl-test",
      object: "chat.completion",
      created: 1_700_000_000,
      model: opts.model ?? "test-model",
      choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: opts.finishReason ?? "stop", logprobs: null }],
      usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
    },
  };
}

/** The structured answer the reranker asks for: `{"ranking": [...]}`. */
export function rankedReply(labels: readonly string[]): Reply {
  return chatReply(JSON.stringify({ ranking: labels }));
}

/** An OpenAI-shaped error body with the given status, e.g. 429 with `{ "retry-after": "1" }`. */
export function errorReply(status: number, opts: { headers?: Record<string, string>; code?: string; message?: string } = {}): Reply {
  return {
    status,
    headers: opts.headers ?? {},
    json: { error: { message: opts.message ?? `test error ${status}`, type: "test_error", param: null, code: opts.code ?? null } },
  };
}

/** `reply`, answered after `delayMs`. */
export function slow(delayMs: number, reply: Reply): Reply {
  return { ...reply, delayMs };
}

// ---------------------------------------------------------------- prompt helpers

export interface PromptCard {
  label: string;
  text: string;
}

/** The candidate cards (`[c1] …` lines) of the last user message of a chat body. */
export function cardsOf(body: ChatBody): PromptCard[] {
  const user = body.messages.filter((message) => message.role === "user").at(-1)?.content ?? "";
  return [...user.matchAll(/^\[(c\d+)\] (.*)$/gm)].map((match) => ({ label: match[1] ?? "", text: match[2] ?? "" }));
}

/** The whole prompt (all messages), for assertions on what the model is told. */
export function promptOf(body: ChatBody): string {
  return body.messages.map((message) => `${message.role}: ${message.content}`).join("\n");
}

// ---------------------------------------------------------------- embeddings

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * A deterministic bag-of-words embedding: every lower-cased word adds 1 to a
 * dimension chosen by its hash, so texts sharing words point the same way.
 * Not normalised (the embedder under test must do that).
 */
export function hashEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    const digest = createHash("sha256").update(word).digest();
    const slot = digest.readUInt32BE(0) % dimensions;
    vector[slot] = (vector[slot] ?? 0) + 1 + (digest[4] ?? 0) / 1024; // a little spread, so lengths differ
  }
  if (!vector.some((x) => x !== 0)) vector[0] = 1; // no words: still a usable direction
  return vector;
}

function encodeBase64(vector: readonly number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString("base64");
}

/** A well-formed embeddings answer for `vectors`, honouring the request's `encoding_format`. */
export function embeddingsReply(body: EmbeddingsBody, vectors: readonly (readonly number[])[]): Reply {
  const base64 = body.encoding_format === "base64";
  return {
    json: {
      object: "list",
      model: body.model,
      data: vectors.map((vector, index) => ({ object: "embedding", index, embedding: base64 ? encodeBase64(vector) : [...vector] })),
      usage: { prompt_tokens: 1, total_tokens: 1 },
    },
  };
}

export function inputsOf(body: EmbeddingsBody): string[] {
  return typeof body.input === "string" ? [body.input] : body.input;
}

/** The default embeddings handler: hashed bag of words, `dimensions` or 1536 long. */
export const hashEmbeddingsHandler: Handler<EmbeddingsBody> = (body) =>
  embeddingsReply(
    body,
    inputsOf(body).map((text) => hashEmbedding(text, body.dimensions ?? 1536)),
  );

const defaultChat: Handler<ChatBody> = () => errorReply(500, { message: "no chat handler scripted for this test" });

// ---------------------------------------------------------------- server

export async function startOpenAiServer(): Promise<OpenAiServer> {
  const requests: RecordedRequest[] = [];
  let chatHandler: Handler<ChatBody> = defaultChat;
  let embeddingsHandler: Handler<EmbeddingsBody> = hashEmbeddingsHandler;
  let chatQueue: Array<Reply | Handler<ChatBody>> = [];
  let embeddingsQueue: Array<Reply | Handler<EmbeddingsBody>> = [];

  async function answer(path: string, body: unknown, recorded: RecordedRequest): Promise<Reply> {
    if (path === "/chat/completions") {
      const parsed = ChatBodySchema.safeParse(body);
      if (!parsed.success) return errorReply(400, { message: `bad chat body: ${parsed.error.message}` });
      const next = chatQueue.shift() ?? chatHandler;
      return typeof next === "function" ? next(parsed.data, recorded) : next;
    }
    if (path === "/embeddings") {
      const parsed = EmbeddingsBodySchema.safeParse(body);
      if (!parsed.success) return errorReply(400, { message: `bad embeddings body: ${parsed.error.message}` });
      const next = embeddingsQueue.shift() ?? embeddingsHandler;
      return typeof next === "function" ? next(parsed.data, recorded) : next;
    }
    return errorReply(404, { message: `unknown path ${path}` });
  }

  /** Resolves after `ms`, or as soon as the client hangs up. */
  function wait(res: ServerResponse, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      res.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async function write(res: ServerResponse, reply: Reply): Promise<void> {
    if (reply.delayMs) await wait(res, reply.delayMs);
    if (res.destroyed || res.writableEnded) return;
    const text = reply.text ?? JSON.stringify(reply.json ?? {});
    res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
    if (reply.bodyDelayMs) {
      res.flushHeaders();
      await wait(res, reply.bodyDelayMs);
      if (res.destroyed) return;
    }
    res.end(text);
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = null;
      }
      const path = (req.url ?? "/").replace(/^\/v1(?=\/)/, "").replace(/\?.*$/, "");
      const recorded: RecordedRequest = { method: req.method ?? "GET", path, headers: req.headers, body, abandoned: false };
      requests.push(recorded);
      res.on("close", () => {
        if (!res.writableFinished) recorded.abandoned = true;
      });
      void (async () => {
        let reply: Reply;
        try {
          reply = await answer(path, body, recorded);
        } catch (error) {
          reply = errorReply(500, { message: `handler threw: ${String(error)}` });
        }
        await write(res, reply);
      })();
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    chatRequests: () => requests.filter((request) => request.path === "/chat/completions"),
    embeddingRequests: () => requests.filter((request) => request.path === "/embeddings"),
    onChat(handler) {
      chatHandler = handler;
    },
    onEmbeddings(handler) {
      embeddingsHandler = handler;
    },
    queueChat(...replies) {
      chatQueue.push(...replies);
    },
    queueEmbeddings(...replies) {
      embeddingsQueue.push(...replies);
    },
    reset() {
      requests.length = 0;
      chatQueue = [];
      embeddingsQueue = [];
      chatHandler = defaultChat;
      embeddingsHandler = hashEmbeddingsHandler;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/**
 * A test file's server and a client on it, for the top of the file:
 * `const { server, client } = await withOpenAiServer();`. The client sends the
 * key `test-key` and never retries by itself, so each test sees exactly the
 * requests its scripted failures cause. The server is reset before each test
 * and closed after the file.
 */
export async function withOpenAiServer(): Promise<{ server: OpenAiServer; client: OpenAI }> {
  const server = await startOpenAiServer();
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: "test-key", maxRetries: 0 });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());
  return { server, client };
}

/** The chat body of a recorded request (throws when it is not one). */
export function chatBody(request: RecordedRequest | undefined): ChatBody {
  return ChatBodySchema.parse(request?.body);
}

export function embeddingsBody(request: RecordedRequest | undefined): EmbeddingsBody {
  return EmbeddingsBodySchema.parse(request?.body);
}
