/**
 * The typed client TypeScript consumers import: tRPC over HTTP with end-to-end
 * types from the server's router.
 *
 *   const catalog = createCatalogClient({ baseUrl: "http://127.0.0.1:3000", apiKey });
 *   const { products } = await catalog.products.search.query({ q: "tent", limit: 5 });
 */
import { createTRPCClient, httpBatchLink } from "@trpc/client";
// Type-only: erased at build time, so consumers import no server code.
import type { AppRouter } from "../server/api/router.js";

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
