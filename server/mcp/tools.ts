/**
 * The MCP tools: one per operation of the table that declares an `mcp`
 * binding, running the operation's call with its input and output schemas
 * (api/invoke.ts), so arguments, answers and errors are the REST and /trpc
 * ones. The Universal Commerce Protocol's tools (operations whose REST base is
 * `ucp`) speak that protocol's MCP binding instead: arguments `{meta,
 * catalog}`, business outcomes as results, and what stops a request (invalid
 * arguments, a batch too large) as JSON-RPC errors.
 *
 * Built on the SDK's low-level `Server` rather than `McpServer`: McpServer
 * validates arguments itself and answers its own message, while a bad
 * argument here must give the REST problem (code, detail, errors).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type Tool,
  ToolSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Problem } from "../../shared/schemas/index.js";
import { VERSION } from "../version.js";
import type { CallContext } from "../api/context.js";
import { invoke } from "../api/invoke.js";
import { type AnyOperation, baseOf, operationList, UNIT_COST } from "../api/operations/index.js";
import { problemFromThrown } from "../api/problems.js";
import { UcpMetaSchema } from "../../shared/schemas/index.js";
import { readAgentMeta } from "../ucp/agent.js";
import { transportError } from "../ucp/envelope.js";

// shared/schemas are classic Zod; unwrap() and `out` are typed as the core schemas they extend.
const classic = (schema: z.core.$ZodType) => schema as z.ZodType;

/**
 * The typed view of a REST parameter: query-string preprocessing (`"20"` → 20, `"false"` → false)
 * stripped, so the JSON Schema says integer and boolean. Optional, default and description are kept.
 */
function withoutPreprocess(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodDefault) return withoutPreprocess(classic(schema.unwrap())).default(schema.def.defaultValue);
  if (schema instanceof z.ZodOptional) return withoutPreprocess(classic(schema.unwrap())).optional();
  if (schema instanceof z.ZodPipe && schema.in instanceof z.ZodTransform) return classic(schema.out);
  return schema;
}

/** The arguments a tool advertises, from the operation's input schema, with the tool's own defaults. */
function typedArguments(params: z.ZodObject, defaults: Record<string, unknown> = {}): z.ZodObject {
  const shape = Object.entries(params.shape).map(([name, field]) => {
    const typed = name in defaults ? withoutPreprocess(field).default(defaults[name]) : withoutPreprocess(field);
    return [name, field.description ? typed.describe(field.description) : typed];
  });
  return z.object(Object.fromEntries(shape));
}

/**
 * A tool's JSON Schema, checked against what MCP requires of one: an object schema at the root
 * (a copy of the shape, as a schema with an `id` would become a `$ref`). Draft-07, the dialect
 * the SDK's clients validate `structuredContent` with.
 */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): Tool["inputSchema"] {
  const root = schema instanceof z.ZodObject ? z.object(schema.shape) : schema instanceof z.ZodUnion ? z.union(schema.options) : schema;
  // Examples are for /docs: an agent would pay for them in tokens on every tools/list.
  const json = z.toJSONSchema(root, { io, target: "draft-7", override: ({ jsonSchema }) => void Reflect.deleteProperty(jsonSchema, "examples") });
  // A union of objects (UCP's get_product: the product, or the error envelope) is still an object at the root.
  if (json.type === undefined && Array.isArray(json.anyOf)) json.type = "object";
  return ToolSchema.shape.inputSchema.parse(json);
}

/** A UCP tool's arguments: the protocol's request metadata and the request itself. */
function ucpArguments(input: z.ZodObject): z.ZodObject {
  return z.object({
    meta: UcpMetaSchema.describe('Request metadata: {"ucp-agent": {"profile": "<URL of your platform\'s UCP profile>"}}.'),
    catalog: input.describe("The UCP catalog request."),
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function success(answer: unknown): CallToolResult {
  // Every output schema is an object (jsonSchema checks it at start), so this holds for any checked answer.
  if (!isRecord(answer)) throw new Error("a tool answer must be a JSON object");
  // Structured for clients that read outputSchema, the same JSON as text for those that do not.
  return { structuredContent: answer, content: [{ type: "text", text: JSON.stringify(answer) }] };
}

function failure(problem: Problem): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify(problem) }] };
}

interface CatalogTool {
  listing: Tool;
  operation: AnyOperation;
}

const TOOLS: readonly CatalogTool[] = operationList.flatMap(({ operation }) => {
  if (!operation.mcp) return [];
  return [
    {
      operation,
      listing: {
        name: operation.mcp.tool,
        title: operation.title,
        description: operation.mcp.description,
        inputSchema: jsonSchema(
          baseOf(operation) === "ucp" ? ucpArguments(operation.input) : typedArguments(operation.input, operation.mcp.defaults),
          "input",
        ),
        outputSchema: jsonSchema(operation.output, "output"),
        // A catalog, read only: calling twice changes nothing; only a live lookup reaches outside it (a merchant's page).
        annotations: { title: operation.title, readOnlyHint: true, idempotentHint: true, openWorldHint: operation.mcp.openWorld ?? false },
      },
    },
  ];
});

const BY_NAME = new Map(TOOLS.map((tool) => [tool.listing.name, tool]));

/** Each answer is sent twice, as `structuredContent` and as text, so it counts twice against ANSWER_MAX_BYTES. */
export const MCP_ANSWER_COPIES = 2;

/**
 * A JSON-RPC error for the SDK to send as `{code, message}`. Not McpError: its message already starts
 * "MCP error -32602: ", and SDK clients add that prefix again when they raise what they receive.
 */
class ProtocolError extends Error {
  override readonly name = "ProtocolError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** JSON-RPC codes of the UCP binding: invalid params (-32602), UCP discovery (-32001), the server (-32603), the rest of the protocol's errors (-32000). */
const JSONRPC_BY_STATUS = (status: number) =>
  status === 400 ? ErrorCode.InvalidParams : status >= 500 && status !== 503 ? ErrorCode.InternalError : -32000;

/** Runs a UCP tool: a result for every business outcome, a JSON-RPC error (with the protocol's error envelope as data) for what stops the request. */
async function callUcp(operation: AnyOperation, ctx: CallContext, args: Record<string, unknown>): Promise<CallToolResult> {
  if (args.catalog === undefined && "id" in args && operation.mcp?.tool === "get_product") {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      'get_product is now the Universal Commerce Protocol\'s tool: pass {meta: {"ucp-agent": {profile}}, catalog: {id}}. The tool that took {id} and answered {pdp} is get_product_by_id.',
    );
  }
  const agent = readAgentMeta(args.meta);
  if (!agent.ok) throw new ProtocolError(-32001, agent.reason, { code: "invalid_profile_url", content: agent.reason });
  try {
    return success(await invoke(operation, ctx, args.catalog));
  } catch (thrown) {
    const { status, body } = transportError(thrown, ctx.requestId, ctx.log);
    throw new ProtocolError(JSONRPC_BY_STATUS(status), body.messages.map((message) => message.content).join(" "), body);
  }
}

/** Rate-limit units one JSON-RPC message costs: a tool call its operation's cost, anything else (or an unknown tool) one unit. */
export function messageCost(message: unknown): number {
  const call = CallToolRequestSchema.safeParse(message);
  return call.success ? (BY_NAME.get(call.data.params.name)?.operation.cost ?? UNIT_COST) : UNIT_COST;
}

/** The tool's defaults under the arguments given; an agent asking for raw data wants the whole record, not the default view. */
function withDefaults(defaults: Record<string, unknown> = {}, given: Record<string, unknown>): Record<string, unknown> {
  const { view, ...others } = defaults;
  const keepView = view !== undefined && !(given.include_raw_data === true || given.include_raw_data === "true");
  return { ...others, ...(keepView ? { view } : {}), ...given };
}

/**
 * An MCP server over the catalog's tools. `context` gives the context a call
 * runs in: the HTTP request's, or a fresh one per call on stdio.
 */
export function createMcpServer(context: () => CallContext): Server {
  const server = new Server(
    { name: "product-catalog", title: "Product Catalog Lookup", version: VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        "A read-only catalog of products from merchants' product pages. Search with search_products; read one product with get_product_by_id or get_product_by_url. " +
        "search_catalog, lookup_catalog and get_product are the same catalog in the Universal Commerce Protocol's terms (arguments {meta, catalog}). " +
        "Errors are tool results with isError and an RFC 9457 problem as JSON text: `code` says what went wrong, `detail` how to fix it.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS.map((tool) => tool.listing) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = BY_NAME.get(request.params.name);
    if (!tool) throw new ProtocolError(ErrorCode.InvalidParams, `No tool ${request.params.name}; the tools are ${[...BY_NAME.keys()].join(", ")}.`);
    const ctx = context();
    if (baseOf(tool.operation) === "ucp") return callUcp(tool.operation, ctx, request.params.arguments ?? {});
    try {
      return success(await invoke(tool.operation, ctx, withDefaults(tool.operation.mcp?.defaults, request.params.arguments ?? {})));
    } catch (thrown) {
      return failure(problemFromThrown(thrown, ctx.requestId, ctx.log));
    }
  });
  return server;
}
