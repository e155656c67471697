/**
 * The catalog's vectors must come from the embedder that embeds queries.
 * `checkEmbeddingModel` refuses a mismatch at start; `reindex` re-embeds every
 * product whose vector another model made, a batch per transaction, so an
 * interrupted run resumes where it stopped.
 */
import type { Database } from "../db/client.js";
import { countNeedingEmbedding, embeddingModels, productsNeedingEmbedding, setEmbeddings } from "../catalog/repository.js";
import type { Embedder } from "./embedder.js";
import { embeddingText } from "./embedding-text.js";

export class EmbeddingMismatchError extends Error {
  override readonly name = "EmbeddingMismatchError";
}

export async function checkEmbeddingModel(db: Database, embedder: Embedder): Promise<void> {
  const models = await embeddingModels(db);
  const others = models.filter((model) => model !== embedder.model);
  if (others.length === 0) return;
  const pending = await countNeedingEmbedding(db, embedder.model);
  throw new EmbeddingMismatchError(
    `The catalog's vectors were made by ${others.join(", ")} (${pending} products), but the configured embedder is ${embedder.model}. ` +
      `Run \`npm run -s catalog -- reindex\` with the same EMBEDDINGS settings to re-embed the catalog (it can be interrupted and resumed), ` +
      `or go back to the settings that built it.`,
  );
}

export async function reindex(
  deps: { db: Database; embedder: Embedder },
  options: { batchSize?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<{ reembedded: number }> {
  const batchSize = options.batchSize ?? 64;
  const total = await countNeedingEmbedding(deps.db, deps.embedder.model);
  let done = 0;
  for (;;) {
    const batch = await productsNeedingEmbedding(deps.db, deps.embedder.model, batchSize);
    if (batch.length === 0) break;
    const vectors = await deps.embedder.embed(batch.map(embeddingText));
    const rows = batch.map((product, i) => ({ id: product.id, embedding: vectors[i]! }));
    await deps.db.transaction((tx) => setEmbeddings(tx, rows, deps.embedder.model));
    done += batch.length;
    options.onProgress?.(done, total);
  }
  return { reembedded: done };
}
