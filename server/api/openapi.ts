/**
 * The OpenAPI document, generated once from the router by trpc-to-openapi (the
 * REST routes in http/rest.ts serve the same paths). Its generic error bodies
 * are replaced by the problem+json shape the HTTP layer sends, the headers of
 * every answer are named, and /health (served at the root) is added.
 */
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { z } from "zod";
import { createSchema } from "zod-openapi";
import { HealthSchema, ProblemSchema } from "../../shared/schemas/index.js";
import { VERSION } from "../version.js";
import { baseOf, operationList, UNIT_COST } from "./operations/index.js";
import { appRouter } from "./router.js";

export const TITLE = "Product Catalog Lookup API";

/** Each operation's rate-limit cost, in the document (read by /llms.txt and by clients that budget their calls). */
export const COST_EXTENSION = "x-rate-limit-cost";
/** Units some calls cost beyond it, and when (`{units, when}`): a lookup that fetches the merchant's page. */
export const SURCHARGE_EXTENSION = "x-rate-limit-surcharge";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The schema a wrapper holds: optional, default and nullable wrap one; a preprocess is a pipe into it, a transform a pipe out of it. */
function wrapped(schema: z.core.$ZodType): z.core.$ZodType | undefined {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault || schema instanceof z.ZodNullable) return schema.unwrap();
  if (schema instanceof z.ZodPipe) return schema.in instanceof z.ZodTransform ? schema.out : schema.in;
  return undefined;
}

/** What a schema's meta says of it (`.describe()`, `.meta({examples})`), on it or on the schemas it wraps, outermost first. */
function metaOf(schema: z.core.$ZodType): { description?: string; example?: unknown } {
  let description: string | undefined;
  let example: unknown;
  for (let current: z.core.$ZodType | undefined = schema; current && (description === undefined || example === undefined); ) {
    const meta = z.globalRegistry.get(current);
    description ??= typeof meta?.description === "string" ? meta.description : undefined;
    if (example === undefined && Array.isArray(meta?.examples)) example = meta.examples[0];
    current = wrapped(current);
  }
  return { ...(description === undefined ? {} : { description }), ...(example === undefined ? {} : { example }) };
}

/**
 * Each query and path parameter described, with an example where the schema gives one, from the operation's input schema:
 * trpc-to-openapi re-wraps optional members (`.optional()` on the unwrapped schema), which drops their meta, so the
 * generated parameters carry neither; /docs and generated clients would show bare names.
 */
function describeParameters(parameters: unknown[], input: z.ZodObject): void {
  for (const parameter of parameters) {
    if (!isObject(parameter) || typeof parameter.name !== "string") continue;
    const member = input.shape[parameter.name];
    if (!member) continue;
    const { description, example } = metaOf(member);
    if (parameter.description === undefined && description !== undefined) parameter.description = description;
    // Scalar's console fills an optional parameter from its example but leaves it unsent unless the example says
    // `x-disabled: false` (an extension of the Example Object): /docs' first send is then a call that answers.
    if (parameter.examples === undefined && example !== undefined) parameter.examples = { example: { value: example, "x-disabled": false } };
  }
}

/** Where the API is served: relative to wherever the document was read from, or under PUBLIC_URL when the operator set it. */
function serversOf(prefixes: readonly string[], publicUrl: string | undefined) {
  // Public: the same API is served under each prefix (x-internal: the audience, for inventory tools).
  return prefixes.map((prefix) => ({
    url: `${publicUrl ?? ""}${prefix}`,
    // Inventory tools (OWASP API9) read the environment from the description: this server is the one it describes.
    description: publicUrl
      ? `Production: the API under ${prefix}.`
      : `Production: the API under ${prefix} on the server that served this document; a generated client or a proxy needs the whole base, e.g. \`http://127.0.0.1:3000${prefix}\`.`,
    "x-internal": false,
  }));
}

export function buildOpenApiDocument(prefixes: readonly string[], publicUrl?: string): OpenAPIObject {
  const [first = "/api/v1"] = prefixes;
  const doc = generateOpenApiDocument(appRouter, {
    title: TITLE,
    version: VERSION,
    description:
      "Read-only API over an aggregated catalog of products taken from merchants' product detail pages. Every endpoint needs an API key in `Authorization` (the key itself, or `Bearer <key>`). Every error is RFC 9457 `application/problem+json` with a stable `code`. The same catalog also speaks the Universal Commerce Protocol's catalog capability (search, lookup, product detail) over REST and MCP: its business profile at `/.well-known/ucp` names the endpoint, and UCP's own OpenAPI document describes it.",
    baseUrl: first,
    securitySchemes: {
      ApiKey: { type: "apiKey", in: "header", name: "Authorization", description: "The API key itself, or `Bearer <key>`." },
    },
  });
  doc.servers = serversOf(prefixes, publicUrl);
  doc.tags = [
    { name: "products", description: "Search the catalog, and read one product by id or by its page URL." },
    { name: "health", description: "Whether the service and its database answer." },
  ];

  const problem = createSchema(ProblemSchema);
  const health = createSchema(HealthSchema);
  // trpc-to-openapi's own error schemas (`error.BAD_REQUEST`, …) describe bodies this service never sends.
  const ownSchemas = Object.entries(doc.components?.schemas ?? {}).filter(([name]) => !name.startsWith("error."));
  doc.components = {
    ...doc.components,
    schemas: { ...Object.fromEntries(ownSchemas), ...problem.components, ...health.components },
  };
  const problemContent = { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } };
  const text = { type: "string", maxLength: 256 };
  const header = (description: string, schema: Json = text) => ({ description, schema });
  // On every answer (X-Request-Id), every answer to a valid key (RateLimit*, draft-ietf-httpapi-ratelimit-headers;
  // see api/http/ratelimit.ts), and every answer to a keyed route (Cache-Control).
  const common = {
    "X-Request-Id": header("This request's id, as in the logs (an incoming sane `X-Request-Id` is kept)."),
    "Access-Control-Allow-Origin": header("The calling page's origin (or `*`), when CORS_ORIGINS allows it; absent otherwise."),
    "RateLimit-Policy": header('The key\'s quota in cost units per window, e.g. `"default";q=600;w=60`.'),
    RateLimit: header('Units left and seconds until the window resets, e.g. `"default";r=595;t=42`.'),
  };
  const noStore = { "Cache-Control": header("`no-store`: the answer is the key's alone.") };
  const revalidated = {
    ETag: header("A strong validator of this answer: send it back in `If-None-Match` to get 304 while nothing changed."),
    "Cache-Control": header("`private, max-age=0, must-revalidate`: the answer is the key's, reusable once revalidated by its ETag."),
  };
  const retryAfter = {
    "Retry-After": header("Seconds until the key may try again.", { type: "integer", format: "int32", minimum: 0, maximum: 86_400 }),
  };
  const challenge = { "WWW-Authenticate": header('`Bearer realm="product-catalog"`: how to authenticate.') };

  /** Headers and bodies on each answer of an operation; `tagged`: successful answers carry an ETag (GET on REST, see http/caching.ts). */
  function describeAnswers(responses: Json, options: { tagged: boolean; headers?: Record<string, string> }): void {
    const own = Object.fromEntries(Object.entries(options.headers ?? {}).map(([name, description]) => [name, header(description)]));
    for (const [status, response] of Object.entries(responses)) {
      if (!isObject(response)) continue;
      const success = /^2\d\d$/.test(status);
      response.headers = {
        ...common,
        ...(success && options.tagged ? revalidated : noStore),
        ...(success ? own : {}),
        ...(status === "429" || status === "503" ? retryAfter : {}),
        ...(status === "401" ? challenge : {}),
      };
      if (/^[45]\d\d$|^default$/.test(status)) response.content = problemContent;
    }
    if (!("default" in responses)) responses.default = { description: "Error", headers: { ...common, ...noStore }, content: problemContent };
    if (options.tagged) {
      responses["304"] = {
        description: "Not modified: `If-None-Match` matched this answer's ETag; no body.",
        headers: { ...common, ...revalidated },
      };
    }
  }

  const ifNoneMatch = {
    name: "If-None-Match",
    in: "header",
    required: false,
    description: "ETags of answers you hold; a match is answered 304 without a body.",
    schema: { type: "string", maxLength: 1024 },
  };
  for (const { operation } of operationList) {
    if (baseOf(operation) !== "api") continue;
    const method = operation.rest.method === "GET" ? "get" : "post";
    const entry: unknown = doc.paths?.[operation.rest.path]?.[method];
    if (!isObject(entry) || !isObject(entry.responses)) continue;
    const parameters = Array.isArray(entry.parameters) ? entry.parameters : [];
    // Path parameters are always required (OpenAPI 3); preprocessed schemas hide that from the generator.
    for (const parameter of parameters) if (isObject(parameter) && parameter.in === "path") parameter.required = true;
    describeParameters(parameters, operation.input);
    const tagged = method === "get";
    if (tagged) entry.parameters = [...parameters, ifNoneMatch];
    describeAnswers(entry.responses, { tagged, ...(operation.rest.headers ? { headers: operation.rest.headers } : {}) });
    entry[COST_EXTENSION] = operation.cost;
    if (operation.surcharge) entry[SURCHARGE_EXTENSION] = operation.surcharge;
  }

  const healthResponses: Json = {
    "200": { description: "Healthy", content: { "application/json": { schema: health.schema } } },
    "401": { description: "Missing or invalid API key", content: problemContent },
    "429": { description: "The key's rate limit is used up; `Retry-After` says when to try again", content: problemContent },
    "500": { description: "Something went wrong on our side", content: problemContent },
    // The health shape, not a problem: it says what is down.
    "503": { description: "The database does not answer", content: { "application/json": { schema: health.schema } } },
  };
  describeAnswers(healthResponses, { tagged: false });
  healthResponses["503"] = { ...(healthResponses["503"] as Json), content: { "application/json": { schema: health.schema } } };
  doc.paths = {
    ...doc.paths,
    // Under each prefix, like every operation, so that clients generated from this document reach it; also served at /health.
    "/health": {
      get: {
        operationId: "health",
        summary: "Service and database health",
        description: "Also served at `/health` on the server's root, for load balancers and probes.",
        tags: ["health"],
        security: [{ ApiKey: [] }],
        [COST_EXTENSION]: UNIT_COST,
        responses: healthResponses,
      },
    },
  };
  // Every operation needs the key: said once for the whole document, so that /docs preselects it.
  doc.security = [{ ApiKey: [] }];
  return doc;
}
