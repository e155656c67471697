/** What an operation's call sees, whichever transport ran it (REST, /trpc, MCP over HTTP or stdio). */
import type { FastifyBaseLogger } from "fastify";
import type { Admission } from "./admission.js";
import type { AnswerBudget } from "./answer-cap.js";
import type { Principal } from "../auth/service.js";
import type { Services } from "../services.js";

export interface CallContext {
  services: Services;
  /** The verified caller: the HTTP gate checked the key before the call (or stdio's local user). */
  principal: Principal;
  requestId: string;
  log: FastifyBaseLogger;
  /** Response headers the call wants sent (e.g. how search was ranked); transports with headers send them. */
  responseHeaders: Map<string, string>;
  /** What the request's answer may still hold (ANSWER_MAX_BYTES), shared by the calls of a batch. */
  answer: AnswerBudget;
  /** Where search-class calls wait their turn (api/admission.ts); absent: they run at once (MCP on stdio, one local user). */
  admission?: Admission;
  /**
   * Charges the caller's key `units` beyond what the gate charged, for work only the call knows it will do (the
   * operation's declared `surcharge`: a live lookup that fetches), before doing it; throws a `rate_limited`
   * RequestError (429, `Retry-After` set) when that spends the key's limit. Nothing is metered on MCP over stdio.
   */
  charge(units: number): Promise<void>;
}
