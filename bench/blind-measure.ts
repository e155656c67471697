/** Measuring the blind sets (bench/blind-set.ts) against the real HTTP API, one catalog at a time. */
import { openPglite } from "../server/db/open.js";
import type { Embedder } from "../server/search/embedder.js";
import { blindMisses, type BlindSet, blindTable, summariseBlind } from "./blind-set.js";
import { pdpCatalog, sampleCatalog } from "./http-catalog.js";
import { serve } from "./relevance-serve.js";
import type { Stage } from "./relevance-stages.js";

/** The blind sets' tables for one stage; a set whose catalog is absent (no ../shared) is said, not scored. */
export async function measureBlindSets(stage: Stage, embedder: Embedder, sets: readonly BlindSet[], misses = false): Promise<string[]> {
  const lines: string[] = [];
  for (const catalog of ["sample", "pdp"] as const) {
    const mine = sets.filter((set) => set.catalog === catalog);
    if (mine.length === 0) continue;
    const built = catalog === "sample" ? await sampleCatalog() : await pdpCatalog();
    if (!built) {
      lines.push(`${mine.map((set) => set.set).join(", ")}: skipped, ../shared/data/pdp is absent`, "");
      continue;
    }
    const { handle } = await openPglite(built.dataDir);
    const server = await serve(stage, handle, embedder);
    for (const set of mine) {
      const answers = await server.ask(set.queries.map((query, i) => [String(i), query.q] as const));
      lines.push(...blindTable(set, summariseBlind(set, answers)), "");
      if (misses) lines.push(...blindMisses(set, answers), "");
    }
    await server.close();
    await handle.close();
  }
  return lines;
}
