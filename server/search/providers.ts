/** Builds the embedder, the reranker and the query model the configuration names. */
import OpenAI from "openai";
import type { Config } from "../config.js";
import type { Database } from "../db/client.js";
import { EMBEDDING_DIMENSIONS } from "../db/schema.js";
import type { Embedder } from "./embedder.js";
import { createLocalEmbedder } from "./embedders/local.js";
import { createOpenAiEmbedder } from "./embedders/openai.js";
import { createThreadedEmbedder } from "./embedders/threads.js";
import { noneReranker, type Reranker } from "./reranker.js";
import { createLocalReranker } from "./rerankers/local.js";
import { createLlmReranker } from "./rerankers/llm.js";
import { createQueryModel as createModelReader, type QueryModel } from "./pipeline/model-reading.js";

function openAiClient(config: Config): OpenAI {
  return new OpenAI({
    // A local OpenAI-compatible server (vLLM, Ollama, LM Studio) usually needs no key.
    apiKey: config.OPENAI_API_KEY ?? "not-needed",
    // Everything explicit, so the SDK reads nothing from the environment itself.
    baseURL: config.OPENAI_BASE_URL ?? "https://api.openai.com/v1",
    organization: null,
    project: null,
    // Our own log carries what matters (fallbacks, without secrets); the SDK's would bypass it.
    logLevel: "off",
    // Retries are decided by the callers, within their own deadlines.
    maxRetries: 0,
  });
}

export async function createEmbedder(config: Config): Promise<Embedder> {
  if (config.EMBEDDINGS === "local") {
    return config.ENCODER_THREADS > 0
      ? createThreadedEmbedder({ threads: config.ENCODER_THREADS, spreadTo: config.IMPORT_ENCODER_THREADS })
      : createLocalEmbedder();
  }
  if (config.EMBEDDING_DIMENSIONS !== EMBEDDING_DIMENSIONS) {
    throw new Error(`EMBEDDING_DIMENSIONS must be ${EMBEDDING_DIMENSIONS}: the catalog stores vectors of that size`);
  }
  return createOpenAiEmbedder({ client: openAiClient(config), model: config.EMBEDDING_MODEL, dimensions: config.EMBEDDING_DIMENSIONS });
}

export function createReranker(config: Config, db: Database): Reranker {
  switch (config.RERANKER) {
    case "none":
      return noneReranker;
    case "local":
      return createLocalReranker({ db });
    case "llm":
      return createLlmReranker({ client: openAiClient(config), model: config.RERANK_MODEL, timeoutMs: config.RERANK_TIMEOUT_MS });
  }
}

/** The language model that reads queries, when QUERY_ANALYSER=model; none by default (offline). */
export function createQueryModel(config: Config): QueryModel | undefined {
  if (config.QUERY_ANALYSER !== "model") return undefined;
  return createModelReader({
    client: openAiClient(config),
    model: config.QUERY_MODEL ?? config.RERANK_MODEL,
    timeoutMs: config.QUERY_MODEL_TIMEOUT_MS,
  });
}
