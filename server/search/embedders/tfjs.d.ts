/** The little of TF.js that we call through @energetic-ai/core: its .d.ts re-exports packages it bundles, not installs, so it names nothing. */
import "@energetic-ai/core";

declare module "@energetic-ai/core" {
  /** Resolves once the backend (WASM) is initialised. */
  export function ready(): Promise<void>;
}
