/**
 * What an operation is: the one declaration every transport is derived from
 * (tRPC procedure, REST route, MCP tool, OpenAPI entry, /llms.txt line, rate-limit
 * cost). See docs/architecture.md, "Adding an operation".
 */
import type { z } from "zod";
import type { CallContext } from "../context.js";

/** A query reads (GET on REST, `.query` on tRPC); a mutation takes a JSON body (POST, `.mutate`), still without side effects here. */
export type OperationKind = "query" | "mutation";

/**
 * Where an operation's path is served, and in whose terms: `api`, this service's own API under each of
 * API_PREFIXES (problem+json errors, a tRPC procedure, an entry in /openapi.json); `ucp`, the Universal
 * Commerce Protocol's binding under UCP_BASE (its envelope and errors, a `UCP-Agent` header; MCP
 * arguments `{meta, catalog}`; see api/http/ucp.ts and docs/ucp.md).
 */
export type RestBase = "api" | "ucp";

export interface RestBinding<K extends OperationKind> {
  method: K extends "query" ? "GET" : "POST";
  /** `api` unless given. */
  base?: RestBase;
  /** Under each API prefix (`/api/v1`, `/v1`), or under UCP_BASE; OpenAPI style: `/products/{id}`. */
  path: `/${string}`;
  /** Beyond 400, 401, 429 and 503, which every operation can answer: e.g. `{ 404: "No product with that id" }`. */
  errors?: Record<number, string>;
  /** Headers its successful answers carry beyond those every answer has (request id, rate limit, caching), by name: what each says. */
  headers?: Record<string, string>;
}

export interface McpBinding {
  /** The tool's name, snake_case as agents expect. */
  tool: string;
  /** Written for a language model: what it is for, what it returns, what to call instead. */
  description: string;
  /** Arguments an agent gets unless it gives them (e.g. compact records), advertised as the schema's defaults. */
  defaults?: Record<string, unknown>;
  /** The call may reach outside the catalog (a live lookup fetches a merchant's page): MCP's `openWorldHint`. */
  openWorld?: true;
}

export interface Operation<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType, K extends OperationKind = OperationKind> {
  kind: K;
  /** Short, for humans: OpenAPI summary, MCP tool title. */
  title: string;
  /** Longer, for the OpenAPI document and /llms.txt. */
  description?: string;
  /** OpenAPI tag. */
  tag: string;
  input: I;
  output: O;
  rest: RestBinding<K>;
  mcp?: McpBinding;
  /** Rate-limit units one call costs (a lookup is 1). Charged for the operation matched, never guessed from the URL. */
  cost: number;
  /**
   * Units charged on top of `cost` for costly work that only the call can know it will do (a lookup that fetches the
   * merchant's page), through `ctx.charge` as that work starts, so the same answer's rate-limit headers count them.
   * `when` says when, for the OpenAPI document (`x-rate-limit-surcharge`) and /llms.txt.
   */
  surcharge?: { units: number; when: string };
  /**
   * `search`: a search-class call, which costs seconds of database time under load: it takes an admission slot
   * (api/admission.ts) and waits its turn, or is refused with 503 `overloaded`. Absent: never queued (lookups).
   */
  admission?: "search";
  /** `key`: only callers with a valid API key (checked before any body is read). */
  auth: "key";
  /** The service call. Input is parsed with `input` before; the answer is checked against `output` after. */
  call(ctx: CallContext, input: z.output<I>): Promise<z.input<O>>;
}

/** What a call that runs no operation costs: /health, /metrics, an MCP message other than a tool call, a tRPC path that routes nowhere. */
export const UNIT_COST = 1;

export function baseOf(operation: { rest: { base?: RestBase } }): RestBase {
  return operation.rest.base ?? "api";
}

/** Any declared operation, discriminated by `kind`. */
export type AnyOperation = Operation<z.ZodObject, z.ZodType, "query"> | Operation<z.ZodObject, z.ZodType, "mutation">;

/** Declares a query; the function only fixes `kind` and infers the schemas' types for `call`. */
export function query<I extends z.ZodObject, O extends z.ZodType>(spec: Omit<Operation<I, O, "query">, "kind">): Operation<I, O, "query"> {
  return { kind: "query", ...spec };
}

/** Declares a mutation (a POST with a JSON body). */
export function mutation<I extends z.ZodObject, O extends z.ZodType>(spec: Omit<Operation<I, O, "mutation">, "kind">): Operation<I, O, "mutation"> {
  return { kind: "mutation", ...spec };
}
