/** The worker thread behind the threaded embedder (threads.ts): the local sentence encoder, served to the parent. */
import { createLocalEmbedder } from "./local.js";
import { serveEncoder } from "./threads.js";

await serveEncoder(() => createLocalEmbedder());
