import type { Embedder } from "../../server/search/embedder.js";
import { createLocalEmbedder } from "../../server/search/embedders/local.js";

let shared: Promise<Embedder> | null = null;

/**
 * The real sentence encoder, loaded once per test worker: it is read-only, so files can share it. A text's vector is
 * kept for the worker's later files (a dozen files import the 241-product sample catalog, on two database paths
 * each): the encoder gives the same vector for the same text, so only its cost is saved.
 */
export function sharedEmbedder(): Promise<Embedder> {
  shared ??= createLocalEmbedder().then(remembering);
  return shared;
}

/** The most vectors kept (~4 KB each), oldest forgotten first. */
const KEPT_MOST = 20_000;

function remembering(encoder: Embedder): Embedder {
  const kept = new Map<string, number[]>();
  return {
    model: encoder.model,
    dimensions: encoder.dimensions,
    ...(encoder.onCallerThread !== undefined && { onCallerThread: encoder.onCallerThread }),
    async embed(texts) {
      const missing = [...new Set(texts.filter((text) => !kept.has(text)))];
      const computed = missing.length > 0 ? await encoder.embed(missing) : [];
      const fresh = new Map(missing.map((text, i) => [text, computed[i]!]));
      const vectors = texts.map((text) => [...(fresh.get(text) ?? kept.get(text)!)]);
      for (const [text, vector] of fresh) kept.set(text, vector);
      for (const text of kept.keys()) {
        if (kept.size <= KEPT_MOST) break;
        kept.delete(text);
      }
      return vectors;
    },
    close: () => encoder.close(),
  };
}
