/** Fixture access for the extraction tests. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { loadConfig } from "../../../server/config.js";
import { decodePage, type ExtractedRecord, extractProduct, type ExtractOptions } from "../../../server/ingest/extract/index.js";
import { importLimits } from "../../../server/ingest/limits.js";

/** The caps an operator gets by default (server/config.ts). */
export const DEFAULT_LIMITS = importLimits(loadConfig({}));

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "../../fixtures/pdp");

export function fixturePath(name: string): string {
  return join(FIXTURES, name);
}

export function fixture(name: string): string {
  return decodePage(new Uint8Array(readFileSync(fixturePath(name))));
}

/** Extracts a fixture and fails the test with the extractor's reason when it does not succeed. */
export function extractFixture(name: string, options: ExtractOptions = {}): ExtractedRecord {
  const result = extractProduct(fixture(name), options);
  if (!result.ok) expect.fail(`${name}: ${result.error}`);
  return result.record;
}
