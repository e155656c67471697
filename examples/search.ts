/**
 * Searches the catalog with the typed client from shared/ and prints the results.
 *
 *   CATALOG_API_KEY=pcl_test_… npx tsx examples/search.ts waterproof hiking jacket --limit 5
 *   npx tsx examples/search.ts kettle --brand copperleafkitchen.example --url http://127.0.0.1:3000 --key pcl_test_…
 *
 * The service's URL and key come from --url / --key, else CATALOG_URL (default
 * http://127.0.0.1:3000) / CATALOG_API_KEY. This is a client program, not
 * server code, so it reads process.env itself; the server reads it only in
 * server/config.ts.
 */
import { parseArgs } from "node:util";
import { TRPCClientError } from "@trpc/client";
import { createCatalogClient, type AppRouter } from "../shared/client.js";
import { isWholeRecord } from "../shared/schemas/index.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: "string", default: process.env.CATALOG_URL ?? "http://127.0.0.1:3000" },
    key: { type: "string", default: process.env.CATALOG_API_KEY ?? "" },
    limit: { type: "string", default: "5" },
    brand: { type: "string" },
  },
});
const query = positionals.join(" ");
if (query === "" || values.key === "") {
  process.stderr.write("usage: examples/search.ts QUERY… [--limit N] [--brand DOMAIN] [--url URL | CATALOG_URL=…] [--key KEY | CATALOG_API_KEY=…]\n");
  process.exit(2);
}

const catalog = createCatalogClient({ baseUrl: values.url, apiKey: values.key });
try {
  // The server validates `limit` and answers a bad one with `invalid_parameter`, printed below.
  const { products } = await catalog.products.search.query({
    q: query,
    limit: Number(values.limit),
    ...(values.brand ? { brand_url: values.brand } : {}),
  });
  console.log(`${products.length} product${products.length === 1 ? "" : "s"} for "${query}":`);
  products.forEach(({ pdp }, index) => {
    // The whole record unless a compact view was asked for.
    const brands = isWholeRecord(pdp) ? pdp.brands.join(", ") : pdp.brand;
    const details = [pdp.price_label, brands].filter(Boolean).join(" · ");
    console.log(`${String(index + 1).padStart(3)}. ${pdp.name}${details ? ` (${details})` : ""}`);
    console.log(`     ${pdp.url}  [${pdp.id}]`);
  });
} catch (error) {
  // The service's errors arrive typed: `data.code` is the same machine code REST puts in its problems.
  if (!(error instanceof TRPCClientError)) throw error;
  const { data } = error as TRPCClientError<AppRouter>;
  process.stderr.write(`search failed: ${data?.code ?? "no answer"}: ${error.message}\n`);
  process.exit(1);
}
