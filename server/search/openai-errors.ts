/**
 * How an OpenAI-compatible server's failures are read, shared by the embedder
 * (embedders/openai.ts) and the LLM reranker (rerankers/llm.ts). Each keeps its
 * own retry policy (the embedder backs off patiently, the reranker races a
 * deadline); what lives here is only what the protocol itself says: which
 * HTTP statuses are worth another try, and how long the server asks us to wait.
 * One copy, so the two callers cannot drift apart on either.
 */

/** 429 (rate limit), 408 (request timeout) and any 5xx: the same request may succeed later. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

/** `retry-after-ms` (OpenAI's) or `retry-after` (seconds or an HTTP date), in milliseconds. */
export function retryAfter(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  const ms = Number(headers?.get("retry-after-ms") ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
