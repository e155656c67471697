/** Moving a catalog from one embedding model to another: refusal on mismatch, reindex, resume after interruption. */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, rootOn, type TestApp } from "../helpers/app.js";
import { errorReply, hashEmbeddingsHandler, startOpenAiServer, type OpenAiServer } from "../helpers/openai-server.js";
import { createOpenAiEmbedder } from "../../server/search/embedders/openai.js";
import { checkEmbeddingModel, EmbeddingMismatchError, reindex } from "../../server/search/reindex.js";
import { countNeedingEmbedding } from "../../server/catalog/repository.js";
import { FIXTURE } from "../helpers/catalog.js";
import type { Embedder } from "../../server/search/embedder.js";

let server: OpenAiServer;
let t: TestApp;
let openai: Embedder;
beforeAll(async () => {
  server = await startOpenAiServer();
  t = await createTestApp();
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: "test-key", maxRetries: 0 });
  openai = await createOpenAiEmbedder({ client, model: "text-embedding-3-small", dimensions: 512, maxRetries: 0 });
});
afterAll(async () => {
  await t?.close();
  await server?.close();
});

describe("catalog reindex", () => {
  it("refuses to serve a catalog embedded by another model, naming `catalog reindex`", async () => {
    const refusal = checkEmbeddingModel(t.database.db, openai);
    await expect(refusal).rejects.toBeInstanceOf(EmbeddingMismatchError);
    await expect(refusal).rejects.toThrow(/use-lite.*catalog -- reindex/s);
  });

  it("re-embeds in batches, survives an interruption and resumes where it stopped", async () => {
    server.queueEmbeddings(hashEmbeddingsHandler, hashEmbeddingsHandler, errorReply(500));
    await expect(reindex({ db: t.database.db, embedder: openai }, { batchSize: 2 })).rejects.toThrow();
    expect(await countNeedingEmbedding(t.database.db, openai.model)).toBe(FIXTURE.length - 4);

    const progress: number[] = [];
    const resumed = await reindex({ db: t.database.db, embedder: openai }, { batchSize: 2, onProgress: (done) => progress.push(done) });
    expect(resumed.reembedded).toBe(FIXTURE.length - 4);
    expect(progress.at(-1)).toBe(FIXTURE.length - 4);
    await expect(checkEmbeddingModel(t.database.db, openai)).resolves.toBeUndefined();
    await expect(checkEmbeddingModel(t.database.db, await import("../helpers/embedder.js").then((m) => m.sharedEmbedder()))).rejects.toThrow(
      /catalog -- reindex/,
    );
  });

  it("serves search with the new model's vectors", async () => {
    const root = await rootOn(t.database, { embedder: openai });
    const services = await root.services();
    const { hits } = await services.search.search({
      q: "saucepan lid",
      limit: 3,
      include_raw_data: false,
      parse_query: true,
      typos: true,
      synonyms: true,
      explain: false,
    });
    expect(hits[0]?.product.name).toBe("Stainless Steel Saucepan 2 L");
    await root.close();
  });
});
