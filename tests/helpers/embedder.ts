import type { Embedder } from "../../server/search/embedder.js";
import { createLocalEmbedder } from "../../server/search/embedders/local.js";

let shared: Promise<Embedder> | null = null;

/** The real sentence encoder, loaded once per test worker: it is read-only, so files can share it. */
export function sharedEmbedder(): Promise<Embedder> {
  shared ??= createLocalEmbedder();
  return shared;
}
