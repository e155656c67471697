/**
 * The MCP tools: one per operation of the table that declares an `mcp`
 * binding, running the operation's call with its input and output schemas
 * (api/invoke.ts), so arguments, answers and errors are the REST and /trpc
 * ones.
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
import { type AnyOperation, operationList, UNIT_COST } from "../api/operations/index.js";
import { problemFromThrown } from "../api/problems.js";

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
  const root = schema instanceof z.ZodObject ? z.object(schema.shape) : schema;
  return ToolSchema.shape.inputSchema.parse(z.toJSONSchema(root, { io, target: "draft-7" }));
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
        inputSchema: jsonSchema(typedArguments(operation.input, operation.mcp.defaults), "input"),
        outputSchema: jsonSchema(operation.output, "output"),
        // A closed catalog, read only: calling twice changes nothing and reaches nothing outside it.
        annotations: { title: operation.title, readOnlyHint: true, idempotentHint: true, openWorldHint: false },
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
  ) {
    super(message);
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
        "A read-only catalog of products from merchants' product pages. Search with search_products; read one product with get_product (by id) or get_product_by_url. " +
        "Errors are tool results with isError and an RFC 9457 problem as JSON text: `code` says what went wrong, `detail` how to fix it.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS.map((tool) => tool.listing) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = BY_NAME.get(request.params.name);
    if (!tool) throw new ProtocolError(ErrorCode.InvalidParams, `No tool ${request.params.name}; the tools are ${[...BY_NAME.keys()].join(", ")}.`);
    const ctx = context();
    try {
      return success(await invoke(tool.operation, ctx, withDefaults(tool.operation.mcp?.defaults, request.params.arguments ?? {})));
    } catch (thrown) {
      return failure(problemFromThrown(thrown, ctx.requestId, ctx.log));
    }
  });
  return server;
}
