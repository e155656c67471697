/**
 * The operation table: every operation the API serves, by namespace. Each
 * entry is one declaration (see operation.ts); the tRPC router, the REST routes,
 * the MCP tools, the OpenAPI document, /llms.txt and the rate-limit costs are all
 * derived from this table. Its tRPC path is `namespace.name`.
 */
import { type AnyOperation, baseOf } from "./operation.js";
import * as products from "./products.js";
import * as ucp from "./ucp.js";

/** This service's own API: each is also a tRPC procedure and an entry of /openapi.json. */
export const operations = {
  products: {
    search: products.search,
    byId: products.byId,
    byUrl: products.byUrl,
    lookup: products.lookup,
    changes: products.changes,
    offers: products.offers,
    similar: products.similar,
    prices: products.prices,
  },
};

/** The Universal Commerce Protocol's catalog operations (REST under UCP_BASE, MCP tools), in the protocol's terms. */
export const ucpOperations = {
  ucp: { search: ucp.search, lookup: ucp.lookup, product: ucp.product },
};

export interface TableEntry {
  /** The tRPC path, `namespace.name`: also the operation's name in logs and tests. */
  path: string;
  operation: AnyOperation;
}

/** The table as a list, in declaration order. */
export const operationList: readonly TableEntry[] = Object.entries({ ...operations, ...ucpOperations }).flatMap(([namespace, entries]) =>
  Object.entries(entries).map(([name, operation]): TableEntry => ({ path: `${namespace}.${name}`, operation })),
);

const byPath = new Map(operationList.filter((entry) => baseOf(entry.operation) === "api").map((entry) => [entry.path, entry.operation]));

/** The operation at a tRPC path, if any (the UCP operations have none). */
export function operationAt(path: string): AnyOperation | undefined {
  return byPath.get(path);
}

export { UNIT_COST, baseOf, type AnyOperation, type Operation, type RestBase } from "./operation.js";
