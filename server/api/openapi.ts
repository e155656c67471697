/**
 * The OpenAPI document, generated once from the router by trpc-to-openapi (the
 * REST routes in http/rest.ts serve the same paths). Its generic error bodies
 * are replaced by the problem+json shape the HTTP layer sends, the headers of
 * every answer are named, and /health (served at the root) is added.
 */
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { createSchema } from "zod-openapi";
import { HealthSchema, ProblemSchema } from "../../shared/schemas/index.js";
import { VERSION } from "../version.js";
import { operationList, UNIT_COST } from "./operations/index.js";
import { appRouter } from "./router.js";

/** Each operation's rate-limit cost, in the document (read by /llms.txt and by clients that budget their calls). */
export const COST_EXTENSION = "x-rate-limit-cost";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function buildOpenApiDocument(prefixes: readonly string[]): OpenAPIObject {
  const [first = "/api/v1"] = prefixes;
  const doc = generateOpenApiDocument(appRouter, {
    title: "Product Catalog Lookup API",
    version: VERSION,
    description:
      "Read-only API over an aggregated catalog of products taken from merchants' product detail pages. Every endpoint needs an API key in `Authorization` (the key itself, or `Bearer <key>`). Every error is RFC 9457 `application/problem+json` with a stable `code`.",
    baseUrl: first,
    securitySchemes: {
      ApiKey: { type: "apiKey", in: "header", name: "Authorization", description: "The API key itself, or `Bearer <key>`." },
    },
  });
  doc.servers = prefixes.map((url) => ({ url }));

  const problem = createSchema(ProblemSchema);
  const health = createSchema(HealthSchema);
  // trpc-to-openapi's own error schemas (`error.BAD_REQUEST`, …) describe bodies this service never sends.
  const ownSchemas = Object.entries(doc.components?.schemas ?? {}).filter(([name]) => !name.startsWith("error."));
  doc.components = {
    ...doc.components,
    schemas: { ...Object.fromEntries(ownSchemas), ...problem.components, ...health.components },
  };
  const problemContent = { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } };
  const text = { type: "string" };
  // On every answer to a valid key (draft-ietf-httpapi-ratelimit-headers; see api/http/ratelimit.ts).
  const answerHeaders = {
    "X-Request-Id": { description: "This request's id, as in the logs (an incoming sane `X-Request-Id` is kept).", schema: text },
    "RateLimit-Policy": { description: 'The key\'s quota in cost units per window, e.g. `"default";q=600;w=60`.', schema: text },
    RateLimit: { description: 'Units left and seconds until the window resets, e.g. `"default";r=595;t=42`.', schema: text },
  };
  const retryAfter = { "Retry-After": { description: "Seconds until the key may try again.", schema: { type: "integer" } } };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(item as Json)) {
      if (!isObject(operation) || !isObject(operation.responses)) continue;
      // Path parameters are always required (OpenAPI 3); preprocessed schemas hide that from the generator.
      for (const parameter of Array.isArray(operation.parameters) ? operation.parameters : []) {
        if (isObject(parameter) && parameter.in === "path") parameter.required = true;
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!isObject(response)) continue;
        response.headers = status === "429" ? { ...answerHeaders, ...retryAfter } : answerHeaders;
        if (/^[45]\d\d$|^default$/.test(status)) response.content = problemContent;
      }
      if (!("default" in operation.responses)) {
        operation.responses.default = { description: "Error", content: problemContent };
      }
    }
  }
  for (const { operation } of operationList) {
    const entry = doc.paths?.[operation.rest.path]?.[operation.rest.method === "GET" ? "get" : "post"];
    if (entry) Object.assign(entry, { [COST_EXTENSION]: operation.cost });
  }
  doc.paths = {
    ...doc.paths,
    "/health": {
      servers: [{ url: "/" }],
      get: {
        operationId: "health",
        summary: "Service and database health",
        tags: ["health"],
        security: [{ ApiKey: [] }],
        [COST_EXTENSION]: UNIT_COST,
        responses: {
          "200": { description: "Healthy", content: { "application/json": { schema: health.schema } } },
          "401": { description: "Missing or invalid API key", content: problemContent },
          "503": { description: "The database does not answer", content: { "application/json": { schema: health.schema } } },
        },
      },
    },
  };
  return doc;
}
