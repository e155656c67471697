/**
 * /llms.txt (llmstxt.org): the API in a page a language model reads before
 * calling it. The endpoint lines come from the OpenAPI document, so they
 * cannot drift from the routes; the prose covers what the document does not
 * say as plainly (auth, limits, the error shape, MCP).
 */
import type { OpenAPIObject } from "trpc-to-openapi";
import { ErrorCodeSchema, ProblemSchema } from "../../shared/schemas/index.js";
import { baseOf, operationList, UNIT_COST } from "./operations/index.js";
import { COST_EXTENSION, SURCHARGE_EXTENSION } from "./openapi.js";

type PathItem = NonNullable<OpenAPIObject["paths"]>[string];
type Operation = NonNullable<PathItem["get"]>;

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** `/products/{id}` → `~1products~1%7Bid%7D`: a JSON pointer into /openapi.json, escaped for a URL fragment. */
function pointer(path: string): string {
  return encodeURI(path.replaceAll("~", "~0").replaceAll("/", "~1"));
}

/** The document's texts are sentences with or without their final period. */
function withoutPeriod(text: string): string {
  return text.trim().replace(/\.$/, "");
}

function parameterNotes(operation: Operation): string {
  const notes = (operation.parameters ?? []).flatMap((parameter) => {
    if ("$ref" in parameter) return [];
    const schema = parameter.schema && !("$ref" in parameter.schema) ? parameter.schema : {};
    const qualifiers = [
      parameter.in,
      parameter.required ? "required" : undefined,
      schema.default === undefined ? undefined : `default ${String(schema.default)}`,
    ];
    const description = parameter.description ?? schema.description;
    return [`\`${parameter.name}\` (${qualifiers.filter(Boolean).join(", ")})${description ? ` ${withoutPeriod(description)}` : ""}`];
  });
  return notes.length > 0 ? ` Parameters: ${notes.join("; ")}.` : "";
}

/** The document's `x-rate-limit-surcharge`, as openapi.ts writes it. */
function isSurcharge(value: unknown): value is { units: number; when: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    "units" in value &&
    typeof value.units === "number" &&
    "when" in value &&
    typeof value.when === "string"
  );
}

function endpointLines(document: OpenAPIObject): string[] {
  const base = document.servers?.[0]?.url ?? "";
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) => {
    // A path with servers of its own is served there, outside the prefixes.
    const url = `${item.servers?.[0]?.url.replace(/\/$/, "") ?? base}${path}`;
    return METHODS.flatMap((method) => {
      const operation = item[method];
      if (!operation) return [];
      const summary = [operation.summary, operation.description].flatMap((text) => (text ? [`${withoutPeriod(text)}.`] : [])).join(" ");
      const cost = operation[COST_EXTENSION];
      const surcharge: unknown = operation[SURCHARGE_EXTENSION];
      const more = isSurcharge(surcharge) ? `; ${surcharge.units} more ${withoutPeriod(surcharge.when)}` : "";
      const costNote = typeof cost === "number" ? ` Costs ${cost} unit${cost === 1 ? "" : "s"}${more}.` : "";
      return [
        `- [${method.toUpperCase()} ${url}](/openapi.json#/paths/${pointer(path)}/${method}): ${summary}${costNote}${parameterNotes(operation)}`,
      ];
    });
  });
}

/** The Universal Commerce Protocol's operations, from the table (they are not in /openapi.json: UCP publishes their OpenAPI). */
function ucpLines(ucpBase: string): string[] {
  return operationList.flatMap(({ operation }) => {
    if (baseOf(operation) !== "ucp") return [];
    const cost = ` Costs ${operation.cost} unit${operation.cost === 1 ? "" : "s"}.`;
    const tool = operation.mcp ? ` MCP tool \`${operation.mcp.tool}\`.` : "";
    return [
      `- [POST ${ucpBase}${operation.rest.path}](/.well-known/ucp): ${withoutPeriod(operation.title)}. ${withoutPeriod(operation.description ?? "")}.${cost}${tool}`,
    ];
  });
}

export function renderLlmsTxt(document: OpenAPIObject, rateLimitPerMinute: number, ucpBase = "/ucp"): string {
  const prefixes = (document.servers ?? []).map((server) => `\`${server.url}\``);
  return [
    `# ${document.info.title}`,
    "",
    "> Read-only JSON API over an aggregated catalog of products taken from merchants' product detail pages (PDPs): search by text across brands or within one brand's site, get a product by id, or find one by its page URL.",
    "",
    `Authentication: every endpoint needs an API key in the \`Authorization\` header, as the key itself or \`Bearer <key>\`; only /openapi.json, /docs and /llms.txt are public. The REST endpoints are served under each of ${prefixes.join(" and ")} alike.`,
    "",
    `Limits: each key may spend ${rateLimitPerMinute} cost units a minute unless it was issued with its own limit (each endpoint below says what a call costs; MCP tool calls cost what the endpoint they mirror costs, any other call ${UNIT_COST}). Answers carry \`RateLimit-Policy\` and \`RateLimit\` headers; past the limit the answer is 429 with \`Retry-After\` in seconds.`,
    "",
    `Errors: every non-2xx answer is RFC 9457 \`application/problem+json\` with the fields ${Object.keys(ProblemSchema.shape)
      .map((key) => `\`${key}\``)
      .join(
        ", ",
      )}; branch on \`code\`, one of ${ErrorCodeSchema.options.map((code) => `\`${code}\``).join(", ")}. For \`invalid_parameter\`, \`errors\` names each bad parameter. Every answer carries \`X-Request-Id\`; quote it when reporting a problem.`,
    "",
    "## Docs",
    "",
    "- [OpenAPI document](/openapi.json): OpenAPI 3.1, every parameter and response schema",
    "- [API reference](/docs): interactive documentation with a request console",
    "",
    "## Endpoints",
    "",
    ...endpointLines(document),
    "",
    "## MCP",
    "",
    "- [MCP endpoint](/mcp): `POST /mcp`, Model Context Protocol over Streamable HTTP (stateless, JSON answers): the same search and lookups as tools, with the same API key in `Authorization` and the same limits",
    "",
    "## UCP",
    "",
    `- [UCP business profile](/.well-known/ucp): the Universal Commerce Protocol's catalog capability (dev.ucp.shopping.catalog.search and .lookup) over REST under \`${ucpBase}\` and over MCP at /mcp; public. Requests need the API key and a \`UCP-Agent: profile="…"\` header (MCP: \`meta["ucp-agent"].profile\`); prices are integers in minor units`,
    ...ucpLines(ucpBase),
    "",
    "## Optional",
    "",
    "- [tRPC](/trpc): the same procedures over tRPC, for TypeScript clients (a typed client is in the repository's `shared/client.ts`)",
    "",
  ].join("\n");
}
