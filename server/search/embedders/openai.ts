/**
 * Embeddings from an OpenAI-compatible `/embeddings` endpoint. The model name
 * records the dimensions too (`openai:text-embedding-3-small@512`), so a
 * catalog says exactly what made its vectors. Inputs go in batches; answers
 * are checked (count, indices, dimensions, finite numbers) and normalised to
 * unit length. Imports are not latency-bound, so rate limits and server
 * errors are retried with backoff, a bounded number of times.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, type OpenAI } from "openai";
import { z } from "zod";
import type { Embedder } from "../embedder.js";
import { isRetryableStatus, retryAfter } from "../openai-errors.js";

export interface OpenAiEmbedderDeps {
  client: OpenAI;
  /** e.g. `text-embedding-3-small`. */
  model: string;
  /**
   * Vector length. Sent as the `dimensions` parameter (text-embedding-3 models
   * shorten their vectors); when unset, the model's native length, known or probed once.
   */
  dimensions?: number;
  /** Texts per request (the API takes up to 2048). Default 256. */
  batchSize?: number;
  /** Retries of one batch on 429, 408, 5xx and connection errors. Default 5. */
  maxRetries?: number;
  /** First backoff pause, doubled each retry (with jitter), at most 30 s. Default 500. */
  retryBaseMs?: number;
  /** Per request. Default 60 000. */
  timeoutMs?: number;
}

const DEFAULT_BATCH_SIZE = 256;
const MAX_BATCH_SIZE = 2048;
const DEFAULT_MAX_RETRIES = 5;
const DEFAULT_RETRY_BASE_MS = 500;
const DEFAULT_TIMEOUT_MS = 60_000;

/** Native lengths, so a known model needs no probe call. */
const NATIVE_DIMENSIONS: Readonly<Record<string, number>> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
};

/** Floats as asked (`base64`, little-endian float32), or plain numbers from a server that ignored the format. */
const EmbeddingResponseSchema = z.object({
  data: z.array(
    z.object({
      index: z.number().int().nonnegative(),
      embedding: z.union([z.array(z.number()), z.string()]),
    }),
  ),
});

class EmbeddingError extends Error {
  override readonly name = "EmbeddingError";
}

/** What an embedder's requests share: its settings, with their defaults filled in, and its label for errors. */
interface EmbedderContext {
  client: OpenAI;
  model: string;
  /** The `dimensions` parameter sent with each request, when the deps set one. */
  dimensions: number | undefined;
  batchSize: number;
  maxRetries: number;
  retryBaseMs: number;
  timeoutMs: number;
  /** `openai:model`, completed with @dimensions once they are known; used in every error message. */
  label: string;
}

export async function createOpenAiEmbedder(deps: OpenAiEmbedderDeps): Promise<Embedder> {
  const context = contextOf(deps);
  const { model } = deps;
  let dimensions = deps.dimensions ?? NATIVE_DIMENSIONS[model];
  if (dimensions === undefined) {
    const [probe] = await request(context, ["dimension probe"], undefined);
    if (!probe || probe.length === 0) throw new EmbeddingError(`${context.label}: the probe embedding is empty`);
    dimensions = probe.length;
  }
  const size = dimensions;
  context.label = `openai:${model}@${size}`;

  let closed = false;
  return {
    model: context.label,
    dimensions: size,
    async embed(texts) {
      if (closed) throw new EmbeddingError(`${context.label}: embedder is closed`);
      return embedAll(context, size, texts);
    },
    async close() {
      closed = true; // the client belongs to the caller
    },
  };
}

/** The deps with their defaults, checked. */
function contextOf(deps: OpenAiEmbedderDeps): EmbedderContext {
  const { client, model } = deps;
  const batchSize = deps.batchSize ?? DEFAULT_BATCH_SIZE;
  const maxRetries = deps.maxRetries ?? DEFAULT_MAX_RETRIES;
  const retryBaseMs = deps.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!model) throw new RangeError("model must be named");
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
    throw new RangeError(`batchSize must be an integer from 1 to ${MAX_BATCH_SIZE}, got ${batchSize}`);
  }
  if (deps.dimensions !== undefined && (!Number.isInteger(deps.dimensions) || deps.dimensions < 1)) {
    throw new RangeError(`dimensions must be a positive integer, got ${deps.dimensions}`);
  }
  if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new RangeError(`maxRetries must be a non-negative integer, got ${maxRetries}`);
  if (!(retryBaseMs >= 0)) throw new RangeError(`retryBaseMs must be non-negative, got ${retryBaseMs}`);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new RangeError(`timeoutMs must be a positive integer, got ${timeoutMs}`);
  return { client, model, dimensions: deps.dimensions, batchSize, maxRetries, retryBaseMs, timeoutMs, label: `openai:${model}` };
}

/** Unit vectors in input order: empty texts without a request, the rest in batches. */
async function embedAll(context: EmbedderContext, size: number, texts: readonly string[]): Promise<number[][]> {
  const out = new Array<number[]>(texts.length);
  const pending: number[] = [];
  texts.forEach((text, index) => {
    if (text.trim() === "") out[index] = emptyVector(size);
    else pending.push(index);
  });
  for (let start = 0; start < pending.length; start += context.batchSize) {
    const slice = pending.slice(start, start + context.batchSize);
    const vectors = await request(
      context,
      slice.map((index) => texts[index] ?? ""),
      size,
    );
    for (const [k, index] of slice.entries()) out[index] = normalise(context.label, vectors[k] ?? [], index);
  }
  return out;
}

/** One request, retried; returns raw (unnormalised) vectors in input order. */
async function request(context: EmbedderContext, input: readonly string[], expected: number | undefined): Promise<number[][]> {
  const { client, model, dimensions, maxRetries, retryBaseMs, timeoutMs } = context;
  for (let attempt = 0; ; attempt++) {
    try {
      const raw: unknown = await client.embeddings.create(
        {
          model,
          input: [...input],
          encoding_format: "base64",
          ...(dimensions === undefined ? {} : { dimensions }),
        },
        { maxRetries: 0, timeout: timeoutMs },
      );
      return vectorsOf(context.label, raw, input.length, expected);
    } catch (error) {
      if (error instanceof EmbeddingError) throw error; // a bad answer: retrying would not help
      const retryable = isRetryable(error);
      if (!retryable || attempt >= maxRetries) {
        const tries = attempt === 0 ? "" : ` after ${attempt + 1} attempts`;
        throw new EmbeddingError(`${context.label}: embeddings request failed${tries}: ${describe(error, client.apiKey)}`, { cause: error });
      }
      await sleep(pause(attempt, error, retryBaseMs));
    }
  }
}

function vectorsOf(label: string, raw: unknown, count: number, expected: number | undefined): number[][] {
  const parsed = EmbeddingResponseSchema.safeParse(raw);
  if (!parsed.success) throw new EmbeddingError(`${label}: the answer is not an embeddings list`);
  const { data } = parsed.data;
  if (data.length !== count) throw new EmbeddingError(`${label}: ${data.length} embeddings returned for ${count} inputs`);
  const out = new Array<number[] | undefined>(count);
  for (const item of data) {
    if (item.index >= count || out[item.index]) throw new EmbeddingError(`${label}: embedding index ${item.index} is out of range or repeated`);
    const vector = typeof item.embedding === "string" ? decodeBase64(item.embedding) : item.embedding;
    if (!vector) throw new EmbeddingError(`${label}: embedding ${item.index} is not valid base64 float32`);
    if (expected !== undefined && vector.length !== expected) {
      throw new EmbeddingError(`${label}: embedding ${item.index} has ${vector.length} dimensions, expected ${expected}`);
    }
    out[item.index] = vector;
  }
  return out.map((vector) => vector ?? []);
}

function normalise(label: string, vector: readonly number[], index: number): number[] {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum);
  if (!Number.isFinite(norm) || norm === 0) throw new EmbeddingError(`${label}: embedding ${index} has norm ${norm}`);
  return vector.map((x) => x / norm);
}

// An empty text means nothing, and the API rejects it: it gets a fixed unit
// vector (the first axis), far from any real text, without a request.
function emptyVector(size: number): number[] {
  const vector = new Array<number>(size).fill(0);
  vector[0] = 1;
  return vector;
}

function decodeBase64(text: string): number[] | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const bytes = Buffer.from(text, "base64");
  if (bytes.length % 4 !== 0) return null;
  const floats = new Float32Array(bytes.length / 4);
  for (let i = 0; i < floats.length; i++) floats[i] = bytes.readFloatLE(i * 4);
  return Array.from(floats);
}

function isRetryable(error: unknown): boolean {
  if (error instanceof APIConnectionError) return true; // includes timeouts
  if (error instanceof APIError && typeof error.status === "number") {
    return isRetryableStatus(error.status);
  }
  return false;
}

// The bounds of pause(), kept beside it.
const MAX_PAUSE_MS = 30_000;
const MAX_RETRY_AFTER_MS = 60_000;

/** Exponential backoff with jitter (base·2^attempt·[0.5, 1)), at most 30 s; a longer Retry-After wins, up to 60 s. */
function pause(attempt: number, error: unknown, baseMs: number): number {
  const backoff = Math.min(MAX_PAUSE_MS, baseMs * 2 ** attempt * (0.5 + Math.random() / 2));
  const asked = error instanceof APIError ? retryAfter(error.headers) : undefined;
  return asked === undefined ? backoff : Math.min(MAX_RETRY_AFTER_MS, Math.max(backoff, asked));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The status, the server's code and message, with the API key masked should a server echo it. */
function describe(error: unknown, apiKey: string | null): string {
  let text: string;
  if (error instanceof APIConnectionTimeoutError) text = "timed out";
  else if (error instanceof APIConnectionError) text = `connection failed (${error.cause instanceof Error ? error.cause.message : "no detail"})`;
  else if (error instanceof Error) text = error.message;
  else text = String(error);
  return apiKey ? text.split(apiKey).join("[redacted]") : text;
}
