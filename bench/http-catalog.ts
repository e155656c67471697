/**
 * Catalogs for the HTTP benchmark (npm run bench:http), each a PGlite data dir
 * built once and cached under bench/.cache:
 *
 * - `sample`: server/sample/products.ndjson, imported with the real embedder
 *   through the same `importRecords` the server runs at start.
 * - `generated N`: N synthetic products written straight into the table with
 *   the drizzle schema. Their vectors are random unit vectors of 512
 *   dimensions, NOT sentence embeddings (embedding 100,000 texts would take
 *   ~15 minutes); names, descriptions and brands come from word lists so full
 *   text search has realistic matches. Indexes are built after the rows.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getTableName, sql } from "drizzle-orm";
import { openPglite } from "../server/db/open.js";
import { products, EMBEDDING_DIMENSIONS } from "../server/db/schema.js";
import { importRecords } from "../server/ingest/import.js";
import { readNdjson } from "../server/ingest/ndjson.js";
import { importLines } from "../server/ingest/extract/cli.js";
import { importLimits } from "../server/ingest/limits.js";
import { loadConfig } from "../server/config.js";
import { prepareRecord } from "../server/ingest/record.js";
import { backfillStructured } from "../server/catalog/backfill.js";
import { countProducts } from "../server/catalog/repository.js";
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import { createKeyService } from "../server/auth/service.js";
import { SAMPLE_CATALOG_PATH } from "../server/sample/index.js";
import { holdCache } from "./cache-lock.js";
import { catalogDataDir, loadDevQueries } from "./relevance-data.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PDP_PAGES = join(ROOT, "..", "shared", "data", "pdp");
/** Bump when the generator changes what it writes, so cached catalogs are rebuilt. */
const GENERATOR_VERSION = 4;

export interface BenchCatalog {
  name: string;
  /** The PGlite data dir; what the server gets as DATA_DIR. */
  dataDir: string;
  products: number;
  synthetic: boolean;
  /** Real shoppers' queries for this catalog; absent: the generator's (searchQueries). */
  queries?: string[];
}

/** The migrations are in every key: a catalog built before a migration (a new table, a remade column) lacks it. */
const JOURNAL = readFileSync(new URL("../drizzle/meta/_journal.json", import.meta.url));

function cacheDir(label: string, extra: string | Buffer): string {
  const key = createHash("sha256").update(`${label}:${GENERATOR_VERSION}:`).update(extra).update(JOURNAL).digest("hex").slice(0, 16);
  return join(ROOT, "bench", ".cache", `http-${label}-${key}`);
}

const log = (message: string) => process.stderr.write(message);

/** A catalog of real records imported with the real embedder into `name`'s cache dir, once: its data dir. */
async function importedOnce(name: string, key: string | Buffer, lines: () => Parameters<typeof importRecords>[1]): Promise<string> {
  const dir = cacheDir(name, key);
  holdCache(dir);
  const dataDir = join(dir, "pg");
  const done = join(dir, ".complete");
  if (!existsSync(done)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    log(`building the ${name} catalog (real embeddings)…\n`);
    const embedder = await createLocalEmbedder();
    const { handle } = await openPglite(dataDir);
    await handle.migrate();
    await importRecords({ db: handle.db, embedder }, lines());
    await handle.close();
    await embedder.close();
    writeFileSync(done, new Date().toISOString());
  }
  return dataDir;
}

/** The sample catalog, imported once with the configured local embedder. */
export async function sampleCatalog(): Promise<BenchCatalog> {
  const dataDir = await importedOnce("sample", readFileSync(SAMPLE_CATALOG_PATH), () => readNdjson(SAMPLE_CATALOG_PATH));
  return { name: "sample", dataDir, products: await countIn(dataDir), synthetic: false };
}

/** The real merchants' pages in ../shared/data/pdp (extracted and imported as `catalog import` does); null without them. */
export async function pdpCatalog(): Promise<BenchCatalog | null> {
  if (!existsSync(PDP_PAGES)) return null;
  const listing = readdirSync(PDP_PAGES, { recursive: true, encoding: "utf8" }).sort().join("\n");
  const dataDir = await importedOnce("pdp", listing, () => importLines([PDP_PAGES], {}, importLimits(loadConfig({}))));
  return { name: "pdp", dataDir, products: await countIn(dataDir), synthetic: false };
}

/**
 * bench:relevance's CrowdFlower catalog (9,913 real products, real embeddings; built there once, ~7 minutes) with
 * its 130 dev queries: the catalog and queries issue 16 first measured search under load on.
 */
export async function crowdflowerCatalog(): Promise<BenchCatalog> {
  const embedder = await createLocalEmbedder();
  const dataDir = await catalogDataDir(embedder);
  await embedder.close();
  const queries = loadDevQueries().queries.map(([, q]) => q);
  return { name: "crowdflower", dataDir, products: await countIn(dataDir), synthetic: false, queries };
}

async function countIn(dataDir: string): Promise<number> {
  const { handle } = await openPglite(dataDir);
  const n = await countProducts(handle.db);
  await handle.close();
  return n;
}

/** A small seeded PRNG (mulberry32), so a generated catalog is the same every time. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const WORDS = {
  adjectives: [
    "waterproof",
    "lightweight",
    "insulated",
    "compact",
    "ergonomic",
    "wireless",
    "organic",
    "stainless",
    "foldable",
    "breathable",
    "rechargeable",
    "handmade",
    "vintage",
    "classic",
    "ultralight",
    "heavy-duty",
    "cordless",
    "non-stick",
    "adjustable",
    "portable",
    "slim",
    "padded",
    "recycled",
    "quick-dry",
    "thermal",
    "noise-cancelling",
    "ceramic",
    "leather",
    "merino",
    "bamboo",
  ],
  materials: [
    "cotton",
    "wool",
    "nylon",
    "aluminium",
    "steel",
    "oak",
    "walnut",
    "linen",
    "silicone",
    "glass",
    "copper",
    "canvas",
    "down",
    "fleece",
    "titanium",
  ],
  nouns: [
    "jacket",
    "tent",
    "backpack",
    "kettle",
    "skillet",
    "headphones",
    "sneakers",
    "boots",
    "blanket",
    "lamp",
    "chair",
    "desk",
    "mug",
    "bottle",
    "knife",
    "grinder",
    "speaker",
    "watch",
    "wallet",
    "sweater",
    "socks",
    "gloves",
    "hat",
    "duffel",
    "sleeping bag",
    "stove",
    "pan",
    "teapot",
    "cutting board",
    "towel",
    "pillow",
    "rug",
    "vase",
    "candle",
    "notebook",
    "pen",
    "keyboard",
    "mouse",
    "charger",
    "cable",
    "blender",
    "toaster",
    "espresso machine",
    "coffee beans",
    "tea",
    "honey",
    "olive oil",
    "chocolate",
    "granola",
    "shampoo",
    "soap",
    "serum",
    "sunscreen",
    "razor",
  ],
  uses: [
    "hiking",
    "camping",
    "travel",
    "running",
    "cooking",
    "office",
    "gaming",
    "yoga",
    "cycling",
    "winter",
    "summer",
    "kids",
    "gift",
    "home",
    "garden",
  ],
  colours: ["black", "white", "navy", "olive", "sand", "charcoal", "red", "forest green", "slate", "rust"],
};

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

function brandName(i: number): string {
  const syllables = [
    "nor",
    "th",
    "peak",
    "cop",
    "per",
    "leaf",
    "stone",
    "ridge",
    "wave",
    "ember",
    "field",
    "moss",
    "bright",
    "alder",
    "quill",
    "harbor",
  ];
  const r = rng(1000 + i);
  return `${pick(r, syllables)}${pick(r, syllables)}${i}`.replace(/^./, (c) => c.toUpperCase());
}

const BRANDS = 400;

/** A category path for each kind of product, so category filters and facets have realistic shapes. */
const CATEGORY_OF: Record<string, string> = {
  jacket: "Clothing > Jackets",
  sweater: "Clothing > Tops",
  socks: "Clothing > Socks",
  gloves: "Clothing > Accessories",
  hat: "Clothing > Accessories",
  sneakers: "Shoes > Sneakers",
  boots: "Shoes > Boots",
  tent: "Outdoor > Tents",
  backpack: "Outdoor > Backpacks",
  "sleeping bag": "Outdoor > Sleeping Gear",
  stove: "Outdoor > Camp Kitchen",
  bottle: "Outdoor > Hydration",
  duffel: "Outdoor > Bags",
  kettle: "Kitchen > Kettles",
  skillet: "Kitchen > Cookware",
  pan: "Kitchen > Cookware",
  teapot: "Kitchen > Tea",
  "cutting board": "Kitchen > Tools",
  knife: "Kitchen > Knives",
  mug: "Kitchen > Tableware",
  grinder: "Kitchen > Coffee",
  "espresso machine": "Kitchen > Coffee",
  blender: "Kitchen > Appliances",
  toaster: "Kitchen > Appliances",
  headphones: "Audio > Headphones",
  speaker: "Audio > Speakers",
  watch: "Accessories > Watches",
  wallet: "Accessories > Wallets",
  blanket: "Home > Textiles",
  towel: "Home > Textiles",
  pillow: "Home > Bedding",
  rug: "Home > Rugs",
  vase: "Home > Decor",
  candle: "Home > Decor",
  lamp: "Home > Lighting",
  chair: "Furniture > Chairs",
  desk: "Furniture > Desks",
  notebook: "Office > Paper",
  pen: "Office > Writing",
  keyboard: "Electronics > Computer Accessories",
  mouse: "Electronics > Computer Accessories",
  charger: "Electronics > Power",
  cable: "Electronics > Power",
  "coffee beans": "Food > Coffee",
  tea: "Food > Tea",
  honey: "Food > Pantry",
  "olive oil": "Food > Pantry",
  chocolate: "Food > Sweets",
  granola: "Food > Breakfast",
  shampoo: "Beauty > Hair Care",
  soap: "Beauty > Bath & Body",
  serum: "Beauty > Skincare",
  sunscreen: "Beauty > Skincare",
  razor: "Beauty > Shaving",
};

/** Most products in stock, some not, a few on pre-order or back-order. */
function availability(random: () => number): string {
  const r = random();
  return r < 0.85 ? "InStock" : r < 0.93 ? "OutOfStock" : r < 0.97 ? "PreOrder" : "BackOrder";
}

function syntheticRecord(i: number, random: () => number) {
  const brandIndex = Math.floor(random() ** 2 * BRANDS); // some brands are much larger than others
  const brand = brandName(brandIndex);
  const host = `${brand.toLowerCase()}.example`;
  const noun = pick(random, WORDS.nouns);
  const name = `${pick(random, WORDS.adjectives)} ${pick(random, WORDS.materials)} ${noun}`.replace(/^./, (c) => c.toUpperCase());
  const sentences = [
    `A ${pick(random, WORDS.adjectives)} ${noun} made from ${pick(random, WORDS.materials)} for ${pick(random, WORDS.uses)}.`,
    `Available in ${pick(random, WORDS.colours)} and ${pick(random, WORDS.colours)}, it is ${pick(random, WORDS.adjectives)} and easy to care for.`,
    `Designed by ${brand} for ${pick(random, WORDS.uses)} and ${pick(random, WORDS.uses)}, with a ${Math.ceil(random() * 5)}-year warranty.`,
    `Pairs well with our ${pick(random, WORDS.adjectives)} ${pick(random, WORDS.nouns)} and ${pick(random, WORDS.materials)} ${pick(random, WORDS.nouns)}.`,
  ];
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${i}`;
  const price = (5 + random() * 400).toFixed(2);
  const currency = random() < 0.85 ? "USD" : "EUR";
  return prepareRecord({
    url: `https://www.${host}/products/${slug}`,
    name,
    desc: sentences.join(" "),
    media: [1, 2, 3].map((n) => ({ url: `https://cdn.${host}/files/${i}_${n}.jpg`, type: "image" as const })),
    brands: [brand],
    price_label: currency === "USD" ? `$${price}` : `${price.replace(".", ",")} €`,
    offers: { price, currency, availability: availability(random) },
    category: CATEGORY_OF[noun] ?? "Other",
  });
}

/** A random unit vector: normal components give directions uniform on the sphere (Box–Muller). */
function unitVector(random: () => number): Float32Array {
  const v = new Float32Array(EMBEDDING_DIMENSIONS);
  let norm = 0;
  for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) {
    const x = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    v[d] = x;
    norm += x * x;
  }
  norm = Math.sqrt(norm);
  for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) v[d] = v[d]! / norm;
  return v;
}

/**
 * Rows for `COPY products (…) FROM … WITH (FORMAT binary)`. pgvector's text
 * input (strtof under WASM) costs ~2.5 ms a vector in PGlite, so a plain
 * INSERT of 100,000 rows takes ~15 minutes; the binary form skips the parsing.
 */
class BinaryCopy {
  readonly #parts: Buffer[] = [Buffer.concat([Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(8)])];

  row(fields: readonly Buffer[]): void {
    const header = Buffer.alloc(2);
    header.writeInt16BE(fields.length);
    this.#parts.push(header);
    for (const field of fields) {
      const length = Buffer.alloc(4);
      length.writeInt32BE(field.length);
      this.#parts.push(length, field);
    }
  }

  blob(): Blob {
    return new Blob([Buffer.concat([...this.#parts, Buffer.from([0xff, 0xff])])]);
  }

  static text = (value: string) => Buffer.from(value, "utf8");
  /** jsonb's binary form: version 1, then the JSON text. */
  static jsonb = (value: unknown) => Buffer.concat([Buffer.from([1]), Buffer.from(JSON.stringify(value), "utf8")]);
  /** pgvector's binary form: int16 dimensions, int16 unused, float4s, big-endian. */
  static vector(v: Float32Array): Buffer {
    const out = Buffer.alloc(4 + 4 * v.length);
    out.writeInt16BE(v.length, 0);
    for (let d = 0; d < v.length; d++) out.writeFloatBE(v[d]!, 4 + 4 * d);
    return out;
  }
}

/** N synthetic products with random unit vectors, built once and cached. */
export async function generatedCatalog(count: number): Promise<BenchCatalog> {
  const dir = cacheDir(`gen${count}`, String(count));
  holdCache(dir);
  const dataDir = join(dir, "pg");
  const done = join(dir, ".complete");
  if (!existsSync(done)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    // Only for its model name, which the server checks against the stored vectors at start.
    const embedder = await createLocalEmbedder();
    const model = embedder.model;
    await embedder.close();
    const started = performance.now();
    const { handle, client } = await openPglite(dataDir);
    await handle.migrate();
    // Indexes are built once after the rows, which is much faster than maintaining them per insert.
    await client.exec(`DROP INDEX products_embedding_idx; DROP INDEX products_search_idx;`);
    // The drizzle schema's own columns, by their SQL names; the rest take their defaults.
    const c = products;
    const columns = [
      c.id,
      c.url,
      c.urlKey,
      c.brandHost,
      c.name,
      c.desc,
      c.media,
      c.brands,
      c.priceLabel,
      c.offers,
      c.category,
      c.contentHash,
      c.embedding,
      c.embeddingModel,
    ];
    const copy = `COPY ${getTableName(products)} (${columns.map((column) => `"${column.name}"`).join(", ")}) FROM '/dev/blob' WITH (FORMAT binary)`;
    const random = rng(42 + count);
    const batch = 5000;
    for (let start = 0; start < count; start += batch) {
      const rows = new BinaryCopy();
      for (let i = start; i < Math.min(count, start + batch); i++) {
        const r = syntheticRecord(i, random);
        const { text, jsonb } = BinaryCopy;
        rows.row([
          text(r.id),
          text(r.url),
          text(r.urlKey),
          text(r.brandHost),
          text(r.name),
          text(r.desc ?? ""),
          jsonb(r.media ?? []),
          jsonb(r.brands ?? []),
          text(r.priceLabel ?? ""),
          jsonb(r.offers ?? null),
          text(r.category ?? ""),
          text(r.contentHash),
          BinaryCopy.vector(unitVector(random)),
          text(model),
        ]);
      }
      await client.query(copy, [], { blob: rows.blob() });
      log(`\rgenerating ${count} products (random unit vectors, no embedding): ${Math.min(count, start + batch)}`);
    }
    // The filter columns (price in minor units, availability, category key, brand keys), derived as import derives them.
    log(`\n  rows in ${((performance.now() - started) / 1000).toFixed(0)} s; deriving the filter columns…\n`);
    await backfillStructured(handle.db, { batchSize: 2000 });
    log("  building indexes…\n");
    await client.exec(`SET maintenance_work_mem = '1GB';`);
    await client.exec(`CREATE INDEX "products_search_idx" ON "products" USING gin ("search");`);
    const hnsw = performance.now();
    await client.exec(`CREATE INDEX "products_embedding_idx" ON "products" USING hnsw ("embedding" vector_cosine_ops);`);
    log(`  hnsw index in ${((performance.now() - hnsw) / 1000).toFixed(0)} s\n`);
    // One statement per call: VACUUM refuses to run inside the implicit transaction of a multi-statement string.
    await client.exec(`VACUUM ANALYZE products;`);
    await client.exec(`VACUUM ANALYZE product_facets;`);
    await handle.close();
    log(`  built in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
    writeFileSync(done, new Date().toISOString());
  }
  return { name: `generated ${count.toLocaleString("en-US")}`, dataDir, products: count, synthetic: true };
}

export interface Targets {
  /** Random products' ids and urls, to spread requests over the table. */
  products: { id: string; url: string }[];
  key: string;
}

/** Picks products to ask for and issues a key, before the server takes the data dir. */
export async function prepareTargets(catalog: BenchCatalog, howMany = 2000): Promise<Targets> {
  const { handle } = await openPglite(catalog.dataDir);
  // Cached catalogs are not keyed on the migrations: newer ones are applied here, as the server would.
  await handle.migrate();
  const picked = await handle.db.select({ id: products.id, url: products.url }).from(products).orderBy(sql`random()`).limit(howMany);
  const keys = createKeyService({ db: handle.db, clock: () => new Date(), cacheTtlMs: 30_000 });
  // The rate limiter still runs (and counts) for every request; the key's own limit is just out of reach.
  const { key } = await keys.issue({ name: "bench:http", environment: "dev", rateLimitPerMinute: 100_000_000 });
  await handle.close();
  return { products: picked, key };
}

/** Distinct search queries from the generator's words (and the sample's kinds of products). */
export function searchQueries(howMany: number): string[] {
  const random = rng(7);
  const seen = new Set<string>();
  const shapes = [
    () => `${pick(random, WORDS.adjectives)} ${pick(random, WORDS.nouns)}`,
    () => `${pick(random, WORDS.nouns)} for ${pick(random, WORDS.uses)}`,
    () => `${pick(random, WORDS.colours)} ${pick(random, WORDS.materials)} ${pick(random, WORDS.nouns)}`,
    () => `${pick(random, WORDS.adjectives)} ${pick(random, WORDS.uses)} ${pick(random, WORDS.nouns)}`,
    () => `${pick(random, WORDS.nouns)}`,
  ];
  let guard = 0;
  while (seen.size < howMany && guard++ < howMany * 20) seen.add(pick(random, shapes)());
  return [...seen];
}
