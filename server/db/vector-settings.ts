/**
 * Session settings for vector search. HNSW returns at most `ef_search` rows,
 * and under a filter can return fewer than asked; the iterative scan keeps
 * searching until the LIMIT is met (results in relaxed order, re-sorted by
 * the caller). Set per session where possible so a search needs no transaction.
 * A module of its own so search does not import the drivers that apply them.
 */
export const VECTOR_SESSION_SETTINGS: Record<string, string> = {
  "hnsw.ef_search": "100",
  "hnsw.iterative_scan": "relaxed_order",
  "hnsw.max_scan_tuples": "50000",
};
