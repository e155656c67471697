/**
 * The operation table: every operation the API serves, by namespace. Each
 * entry is one declaration (see operation.ts); the tRPC router, the REST routes,
 * the MCP tools, the OpenAPI document, /llms.txt and the rate-limit costs are all
 * derived from this table. Its tRPC path is `namespace.name`.
 */
import type { AnyOperation } from "./operation.js";
import * as products from "./products.js";

export const operations = {
  products: { search: products.search, byId: products.byId, byUrl: products.byUrl, lookup: products.lookup, changes: products.changes },
};

export interface TableEntry {
  /** The tRPC path, `namespace.name`: also the operation's name in logs and tests. */
  path: string;
  operation: AnyOperation;
}

/** The table as a list, in declaration order. */
export const operationList: readonly TableEntry[] = Object.entries(operations).flatMap(([namespace, entries]) =>
  Object.entries(entries).map(([name, operation]): TableEntry => ({ path: `${namespace}.${name}`, operation })),
);

const byPath = new Map(operationList.map((entry) => [entry.path, entry.operation]));

/** The operation at a tRPC path, if any. */
export function operationAt(path: string): AnyOperation | undefined {
  return byPath.get(path);
}

export { UNIT_COST, type AnyOperation, type Operation } from "./operation.js";
