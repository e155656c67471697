/**
 * The typed client TypeScript consumers import: tRPC over HTTP with end-to-end
 * types from the server's router.
 *
 *   const catalog = createCatalogClient({ baseUrl: "http://127.0.0.1:3000", apiKey });
 *   const { products } = await catalog.products.search.query({ q: "tent", limit: 5 });
 */
import { createTRPCClient, httpBatchLink } from "@trpc/client";
// A declaration written from the operation table (server/api/router-declaration.ts): a consumer's compiler reads the
// contract's types only, never the server's sources (which pulled Node's and the database's types into its check).
import type { AppRouter } from "./router.js";

export type { AppRouter };

export interface CatalogClientOptions {
  /** Where the service runs, e.g. `http://127.0.0.1:3000`; `/trpc` is appended. */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof globalThis.fetch;
}

export function createCatalogClient(options: CatalogClientOptions) {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${options.baseUrl.replace(/\/+$/, "")}/trpc`,
        headers: () => ({ authorization: `Bearer ${options.apiKey}` }),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    ],
  });
}

export type CatalogClient = ReturnType<typeof createCatalogClient>;
