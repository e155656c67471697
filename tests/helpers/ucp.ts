/**
 * The Universal Commerce Protocol's own JSON Schemas (2020-12), read from
 * ../shared/reference/ucp as the relevance benchmark reads its data, compiled
 * with Ajv: what the UCP tests validate every request and answer against.
 * Also the examples of the specification's markdown (`<!-- ucp:example … -->`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { UCP_VERSION } from "../../shared/schemas/index.js";
import type { TestRecord } from "./catalog.js";

export const UCP_REFERENCE = resolve(import.meta.dirname, "../../../shared/reference/ucp");
const SCHEMAS = join(UCP_REFERENCE, "source/schemas");
/** Whether the protocol's schemas are there to validate against (a clone without ../shared has none). */
export const UCP_REFERENCE_PRESENT = existsSync(SCHEMAS);
const BASE = "https://ucp.dev/schemas/";

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? jsonFiles(path) : name.endsWith(".json") ? [path] : [];
  });
}

let ajv: Ajv2020 | undefined;

function validator(): Ajv2020 {
  if (ajv) return ajv;
  // Not strict: the protocol's schemas carry annotations of their own (`name`, `ucp_request`).
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  for (const file of jsonFiles(SCHEMAS)) ajv.addSchema(JSON.parse(readFileSync(file, "utf8")));
  return ajv;
}

const compiled = new Map<string, ValidateFunction>();

/** A validator for a schema of the protocol, by its path under source/schemas and a pointer: `shopping/catalog_search.json#/$defs/search_response`. */
export function ucpSchema(ref: string): ValidateFunction {
  let validate = compiled.get(ref);
  if (!validate) {
    const schema = validator().getSchema(`${BASE}${ref}`);
    if (!schema) throw new Error(`no UCP schema ${ref}`);
    validate = schema;
    compiled.set(ref, validate);
  }
  return validate;
}

/** Throws with Ajv's errors unless `data` is valid against the protocol's schema `ref`. */
export function expectValid(ref: string, data: unknown): void {
  const validate = ucpSchema(ref);
  if (!validate(data))
    throw new Error(`not a valid ${ref}: ${JSON.stringify(validate.errors, null, 1)}\n${JSON.stringify(data, null, 1).slice(0, 4000)}`);
}

export const SEARCH_REQUEST = "shopping/catalog_search.json#/$defs/search_request";
export const SEARCH_RESPONSE = "shopping/catalog_search.json#/$defs/search_response";
export const LOOKUP_REQUEST = "shopping/catalog_lookup.json#/$defs/lookup_request";
export const LOOKUP_RESPONSE = "shopping/catalog_lookup.json#/$defs/lookup_response";
export const PRODUCT_REQUEST = "shopping/catalog_lookup.json#/$defs/get_product_request";
export const PRODUCT_RESPONSE = "shopping/catalog_lookup.json#/$defs/get_product_response";
export const ERROR_RESPONSE = "common/types/error_response.json";
export const BUSINESS_PROFILE = "profile.json#/$defs/business_schema";

/** get_product answers the product or the error envelope (the bindings' oneOf). */
export function expectValidProductAnswer(data: unknown): void {
  const isError = typeof data === "object" && data !== null && "messages" in data && !("product" in data);
  expectValid(isError ? ERROR_RESPONSE : PRODUCT_RESPONSE, data);
}

export interface SpecExample {
  file: string;
  /** `search`, `lookup`, `get_product`, `read`, … */
  op: string;
  schema: string;
  direction: "request" | "response";
  /** The JSON the example shows, with `{{ ucp_version }}` filled in and `extract` applied. */
  json: unknown;
  /** The whole JSON shown (for MCP: the JSON-RPC message), before `extract`. */
  raw: unknown;
  /** Whether the example elides parts (`...`), so it can be read but not validated whole. */
  elided: boolean;
}

/** The `$.a.b.c` paths the examples extract. */
function extract(json: unknown, path: string | undefined): unknown {
  if (!path) return json;
  return path
    .replace(/^\$\.?/, "")
    .split(".")
    .filter(Boolean)
    .reduce<unknown>((at, key) => (typeof at === "object" && at !== null ? (at as Record<string, unknown>)[key] : undefined), json);
}

/** The catalog examples of the specification's markdown: each `<!-- ucp:example … -->` and the JSON block after it. */
export function specExamples(files = ["index.md", "search.md", "lookup.md", "rest.md", "mcp.md"]): SpecExample[] {
  return files.flatMap((file) => {
    const text = readFileSync(join(UCP_REFERENCE, "docs/specification/shopping/catalog", file), "utf8");
    const pattern = /<!-- ucp:example ([^>]*)-->\s*```json\n([\s\S]*?)```/g;
    return [...text.matchAll(pattern)].map((match) => {
      const attributes = Object.fromEntries([...match[1]!.matchAll(/(\w+)=(\S+)/g)].map((attribute) => [attribute[1]!, attribute[2]!]));
      // Indented under a tab; an HTTP request shows its head before the body.
      let body = match[2]!
        .replace(/^ {4}/gm, "")
        .replaceAll("{{ ucp_version }}", UCP_VERSION)
        .replaceAll('"ucp": {...}', `"ucp": {"version": "${UCP_VERSION}"}`);
      if (/^(POST|GET) /.test(body.trim())) body = body.slice(body.indexOf("{"));
      const elided = /\.\.\.|…/.test(body);
      const parsed: unknown = elided ? null : JSON.parse(body);
      return {
        file,
        op: attributes.op ?? "",
        schema: attributes.schema ?? "",
        direction: attributes.direction === "request" ? "request" : "response",
        json: elided ? null : extract(parsed, attributes.extract),
        raw: parsed,
        elided,
      } satisfies SpecExample;
    });
  });
}

const TEE = "https://www.northpeak.example/products/ridge-tee";

/** A page with a schema.org ProductGroup: sizes and colours, one combination missing, two out of stock, one dearer. */
export const RIDGE_TEE: TestRecord = {
  url: `${TEE}?color=blue&size=m`,
  name: "Ridge Merino Tee",
  desc: "A merino wool tee for long days on the trail.",
  brands: ["NorthPeak"],
  price_label: "$30.00",
  category: "Clothing > Tops",
  offers: { price: "30.00", currency: "USD", availability: "InStock" },
  identifiers: { sku: "RT-BLU-M", gtin: null, mpn: null },
  media: [{ url: "https://cdn.northpeak.example/ridge-tee.jpg", type: "image" }],
  raw_data: {
    strippedHtml: "<main><h1>Ridge Merino Tee</h1></main>",
    jsons: {
      ld_json: {
        "@context": "https://schema.org",
        "@type": "ProductGroup",
        name: "Ridge Merino Tee",
        productGroupID: "RT",
        variesBy: ["https://schema.org/color", "https://schema.org/size"],
        hasVariant: [
          ["BLU", "Blue", "S", "30.00", "InStock", "012345678912"],
          ["BLU", "Blue", "M", "30.00", "InStock"],
          ["BLU", "Blue", "L", "32.00", "OutOfStock"],
          ["RED", "Red", "S", "30.00", "InStock"],
          ["RED", "Red", "M", "30.00", "OutOfStock"],
        ].map(([code, color, size, price, availability, gtin]) => ({
          "@type": "Product",
          name: `Ridge Merino Tee ${color} ${size}`,
          sku: `RT-${code}-${size}`,
          color,
          size,
          url: `${TEE}?color=${color!.toLowerCase()}&size=${size!.toLowerCase()}`,
          image: `https://cdn.northpeak.example/ridge-tee-${color!.toLowerCase()}.jpg`,
          ...(gtin ? { gtin12: gtin } : {}),
          offers: { "@type": "Offer", price, priceCurrency: "USD", availability: `https://schema.org/${availability}` },
        })),
      },
      props_data: null,
    },
  },
};

/** A page that states no price: no UCP product can be made of it. */
export const UNPRICED: TestRecord = {
  url: "https://www.northpeak.example/products/mystery-tent",
  name: "Mystery Tent",
  desc: "A tent whose page states no price.",
  brands: ["NorthPeak"],
  category: "Outdoor > Tents",
};
