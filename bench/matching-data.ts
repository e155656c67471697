/**
 * The labelled matching data (../shared/data/matching/abt-buy, or the directory given as `--data DIR`): the two
 * shops as import records of two merchants, imported into an in-memory catalog and read back as the matcher sees
 * them, the labelled pairs, the split into a fitting part and a reporting part, and pairwise scoring.
 *
 * The split. The labelled pairs are a graph over the records; each connected component (a product and every record
 * labelled the same; a record labelled with none is a component of its own) goes whole to one part, by the first
 * byte of the SHA-256 of its smallest record id: even fits, odd reports. Deterministic, independent of file order,
 * and a product never has a record on both sides.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { type DatabaseHandle, openPglite } from "../server/db/open.js";
import { products } from "../server/db/schema.js";
import { importRecords } from "../server/ingest/import.js";
import type { ParsedLine } from "../server/ingest/ndjson.js";
import type { ImportRecord } from "../server/ingest/record.js";
import type { MatchInput } from "../server/matching/keys.js";
import type { MatchSettings } from "../server/matching/settings.js";
import type { Embedder } from "../server/search/embedder.js";

const ROOT = resolve(import.meta.dirname, "..");
export const DEFAULT_DATA = resolve(ROOT, "..", "shared", "data", "matching", "abt-buy");

export function dataDir(): string {
  const { values } = parseArgs({ options: { data: { type: "string" } }, allowPositionals: true, strict: false });
  return typeof values.data === "string" ? resolve(values.data) : DEFAULT_DATA;
}

/** RFC 4180 CSV: quoted fields may hold commas, quotes (doubled) and newlines. */
export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = "";
  };
  const endRow = () => {
    endField();
    rows.push(row);
    row = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (quoted) {
      if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") endField();
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      endRow();
    } else field += c;
  }
  if (field !== "" || row.length > 0) endRow();
  const [header, ...body] = rows.filter((r) => r.some((cell) => cell !== ""));
  return body.map((cells) => Object.fromEntries(header!.map((name, i) => [name, cells[i] ?? ""])));
}

function offers(price: string): ImportRecord["offers"] {
  const amount = price.replace(/[$,\s]/g, "");
  return /^\d+(\.\d+)?$/.test(amount) ? { price: amount, currency: "USD", availability: "InStock" } : null;
}

export interface MatchingData {
  records: ImportRecord[];
  /** Labelled pairs as "abt-<id> buy-<id>". */
  truth: Set<string>;
}

export function loadMatchingData(dir: string): MatchingData {
  const read = (file: string) => parseCsv(readFileSync(join(dir, file), "utf8"));
  const abt = read("abt.csv").map(
    (row): ImportRecord => ({
      id: `abt-${row.id}`,
      url: `https://abt.example/p/${row.id}`,
      name: row.name!.trim(),
      desc: row.description ?? "",
      brands: [],
      media: [],
      price_label: row.price ?? "",
      offers: offers(row.price ?? ""),
    }),
  );
  const buy = read("buy.csv").map(
    (row): ImportRecord => ({
      id: `buy-${row.id}`,
      url: `https://buy.example/p/${row.id}`,
      name: row.name!.trim(),
      desc: row.description ?? "",
      brands: row.manufacturer?.trim() ? [row.manufacturer.trim()] : [],
      media: [],
      price_label: row.price ?? "",
      offers: offers(row.price ?? ""),
    }),
  );
  const truth = new Set(read("matches.csv").map((row) => pairKey(`abt-${row.idAbt}`, `buy-${row.idBuy}`)));
  return { records: [...abt, ...buy], truth };
}

export function pairKey(a: string, b: string): string {
  return a < b ? `${a} ${b}` : `${b} ${a}`;
}

async function* lines(records: readonly ImportRecord[]): AsyncGenerator<ParsedLine> {
  for (const [index, record] of records.entries()) yield { source: "bench", line: index + 1, record };
}

/** Imports the records into a fresh in-memory catalog, as two merchants, matching them as an import does (or not). */
export async function importCatalog(records: readonly ImportRecord[], embedder: Embedder, matching?: MatchSettings | null) {
  const { handle } = await openPglite();
  await handle.migrate();
  const started = performance.now();
  const summary = await importRecords({ db: handle.db, embedder, ...(matching === undefined ? {} : { matching }) }, lines(records), {
    batchSize: 128,
  });
  const seconds = (performance.now() - started) / 1000;
  if (summary.failed > 0) throw new Error(`import failed: ${JSON.stringify(summary.failures.slice(0, 3))}`);
  return { handle, seconds };
}

/** The records as the matcher sees them. */
export async function readInputs(handle: DatabaseHandle): Promise<MatchInput[]> {
  return handle.db
    .select({
      id: products.id,
      merchant: products.brandHost,
      name: products.name,
      brand: products.brand,
      gtin14: products.gtin14,
      mpn: sql<string | null>`${products.identifiers}->>'mpn'`,
      vector: products.embedding,
    })
    .from(products)
    .orderBy(products.id);
}

/** The group of every record, as the catalog stored it. */
export async function readGroups(handle: DatabaseHandle): Promise<Map<string, string>> {
  const rows = await handle.db.select({ id: products.id, groupId: products.groupId }).from(products);
  return new Map(rows.map((row) => [row.id, row.groupId]));
}

/** Imports without matching and reads the records back (the fitting script's input). */
export async function importAndRead(records: readonly ImportRecord[], embedder: Embedder): Promise<MatchInput[]> {
  const { handle } = await importCatalog(records, embedder, null);
  try {
    return await readInputs(handle);
  } finally {
    await handle.close();
  }
}

/** An embedder that encodes each text once: the same records imported again cost no encoding. */
export function memoEmbedder(inner: Embedder): Embedder {
  const seen = new Map<string, number[]>();
  return {
    model: inner.model,
    dimensions: inner.dimensions,
    async embed(texts) {
      const missing = [...new Set(texts.filter((text) => !seen.has(text)))];
      const vectors = await inner.embed(missing);
      for (const [i, text] of missing.entries()) seen.set(text, vectors[i]!);
      return texts.map((text) => seen.get(text)!);
    },
    close: () => inner.close(),
  };
}

/** The part of every record: "fit" or "report" (see the split above). */
export function splitParts(ids: readonly string[], truth: ReadonlySet<string>): Map<string, "fit" | "report"> {
  const parent = new Map(ids.map((id) => [id, id]));
  const root = (id: string): string => (parent.get(id) === id ? id : root(parent.get(id)!));
  for (const pair of truth) {
    const [a, b] = pair.split(" ") as [string, string];
    if (!parent.has(a) || !parent.has(b)) continue;
    const [ra, rb] = [root(a), root(b)];
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  }
  // The root is the component's smallest id: every union keeps the smaller.
  return new Map(ids.map((id) => [id, createHash("sha256").update(root(id)).digest()[0]! % 2 === 0 ? "fit" : "report"]));
}

export interface PairScore {
  predicted: number;
  correct: number;
  labelled: number;
  precision: number;
  recall: number;
  f1: number;
}

/** Pairwise precision, recall and F1 of predicted pairs against the labelled pairs among `ids`. */
export function scorePairs(predicted: ReadonlySet<string>, truth: ReadonlySet<string>, ids: ReadonlySet<string>): PairScore {
  const within = (pair: string) => pair.split(" ").every((id) => ids.has(id));
  const labelled = [...truth].filter(within);
  const mine = [...predicted].filter(within);
  const correct = mine.filter((pair) => truth.has(pair)).length;
  const precision = mine.length ? correct / mine.length : 0;
  const recall = labelled.length ? correct / labelled.length : 0;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  return { predicted: mine.length, correct, labelled: labelled.length, precision, recall, f1 };
}

/** Every pair of records in the same group. */
export function pairsOfGroups(groupOf: ReadonlyMap<string, string>): Set<string> {
  const members = new Map<string, string[]>();
  for (const [id, group] of groupOf) members.set(group, [...(members.get(group) ?? []), id]);
  const out = new Set<string>();
  for (const ids of members.values()) for (const a of ids) for (const b of ids) if (a < b) out.add(pairKey(a, b));
  return out;
}

/** The baseline: TF-IDF over the names' words, each record paired with its best match when that one's best is it. */
export function tfidfMutualBest(inputs: readonly MatchInput[]): Set<string> {
  const words = inputs.map((input) => input.name.toLowerCase().match(/[a-z0-9]+/g) ?? []);
  const df = new Map<string, number>();
  for (const ws of words) for (const w of new Set(ws)) df.set(w, (df.get(w) ?? 0) + 1);
  const vectors = words.map((ws) => {
    const v = new Map<string, number>();
    for (const w of ws) v.set(w, (v.get(w) ?? 0) + Math.log(inputs.length / df.get(w)!));
    const norm = Math.hypot(...v.values()) || 1;
    for (const [w, x] of v) v.set(w, x / norm);
    return v;
  });
  const best = inputs.map((input, i) => {
    let top = -1;
    let score = 0;
    for (const [j, other] of inputs.entries()) {
      if (other.merchant === input.merchant) continue;
      let dot = 0;
      for (const [w, x] of vectors[i]!) dot += x * (vectors[j]!.get(w) ?? 0);
      if (dot > score) {
        score = dot;
        top = j;
      }
    }
    return top;
  });
  const out = new Set<string>();
  for (const [i, j] of best.entries()) if (j >= 0 && best[j] === i) out.add(pairKey(inputs[i]!.id, inputs[j]!.id));
  return out;
}

/**
 * The records without half of the buy.com records (those whose id hashes to an odd second byte):
 * a catalog where half the products have one seller, so a record's best candidate is often not its product.
 */
export function sparse(inputs: readonly MatchInput[]): MatchInput[] {
  return inputs.filter((input) => input.merchant !== "buy.example" || createHash("sha256").update(input.id).digest()[1]! % 2 === 0);
}
