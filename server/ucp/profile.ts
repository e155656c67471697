/**
 * The business profile at /.well-known/ucp: the protocol version this service
 * implements, the shopping service over REST (UCP_BASE) and MCP (/mcp), and
 * the two catalog capabilities, each pointing at the protocol's published
 * specification and schemas. No payment handlers: a catalog sells nothing.
 */
import { UCP_LOOKUP, UCP_SEARCH, UCP_SHOPPING, UCP_VERSION, type UcpBusinessProfile } from "../../shared/schemas/index.js";

const SPEC = `https://ucp.dev/${UCP_VERSION}`;

export function businessProfile(origin: string, ucpBase: string, mcpPath = "/mcp"): UcpBusinessProfile {
  const service = { version: UCP_VERSION, spec: `${SPEC}/specification/overview` };
  const capability = (name: string, schema: string) => ({
    version: UCP_VERSION,
    spec: `${SPEC}/specification/shopping/catalog/${name}`,
    schema: `${SPEC}/schemas/shopping/${schema}`,
  });
  return {
    ucp: {
      version: UCP_VERSION,
      services: {
        [UCP_SHOPPING]: [
          { ...service, transport: "rest", schema: `${SPEC}/services/shopping/rest.openapi.json`, endpoint: `${origin}${ucpBase}` },
          { ...service, transport: "mcp", schema: `${SPEC}/services/shopping/mcp.openrpc.json`, endpoint: `${origin}${mcpPath}` },
        ],
      },
      capabilities: {
        [UCP_SEARCH]: [capability("search", "catalog_search.json")],
        [UCP_LOOKUP]: [capability("lookup", "catalog_lookup.json")],
      },
      payment_handlers: {},
    },
  };
}
