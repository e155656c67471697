/**
 * Vectors supplied with the records (the NDJSON `embedding` field): taken instead of embedding the record, when the
 * configured model made them. A vector of another model or size would sit among the catalog's vectors and rank
 * nonsense, so it fails its line, with what was expected.
 */
import type { Embedder } from "../search/embedder.js";
import type { ImportRecord } from "./record.js";

/** The supplied vector scaled to unit length (as the encoder's are), or why it cannot be used. */
export function suppliedVector(
  supplied: NonNullable<ImportRecord["embedding"]>,
  embedder: Pick<Embedder, "model" | "dimensions">,
): { vector: number[] } | { error: string } {
  if (supplied.model !== embedder.model)
    return { error: `embedding.model: is "${supplied.model}", but this catalog's vectors are made by "${embedder.model}"` };
  if (supplied.vector.length !== embedder.dimensions)
    return { error: `embedding.vector: has ${supplied.vector.length} numbers, but ${embedder.model} makes vectors of ${embedder.dimensions}` };
  let norm = 0;
  for (const x of supplied.vector) norm += x * x;
  norm = Math.sqrt(norm);
  // Similarities are read as dot products of unit vectors (matching); a zero vector has no direction at all.
  if (!Number.isFinite(norm) || norm === 0) return { error: "embedding.vector: must have a direction (not all zeros, every number finite)" };
  return { vector: supplied.vector.map((x) => x / norm) };
}
