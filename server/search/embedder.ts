/**
 * The seam between search and whatever turns text into vectors. Implementations
 * live in `embedders/`; the service receives one at boot, so tests and the CLI
 * build the same real thing.
 */
export interface Embedder {
  /** Stable name recorded beside every stored vector, e.g. `use-lite`. */
  readonly model: string;
  /** Length of every vector this embedder returns. */
  readonly dimensions: number;
  /**
   * True when `embed` computes on the caller's thread (the local encoder without ENCODER_THREADS), holding its event
   * loop for each batch: an import then embeds and writes in turn, so no database deadline runs out behind it.
   */
  readonly onCallerThread?: boolean;
  /** One unit-length vector per input text, in input order. */
  embed(texts: readonly string[]): Promise<number[][]>;
  /** Releases model memory; the embedder is unusable afterwards. */
  close(): Promise<void>;
}
