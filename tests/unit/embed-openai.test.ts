import { describe, expect, it } from "vitest";
import { createOpenAiEmbedder, type OpenAiEmbedderDeps } from "../../server/search/embedders/openai.js";
import {
  embeddingsBody,
  embeddingsReply,
  errorReply,
  hashEmbedding,
  hashEmbeddingsHandler,
  inputsOf,
  withOpenAiServer,
} from "../helpers/openai-server.js";

const { server, client } = await withOpenAiServer();

function embedder(overrides: Partial<OpenAiEmbedderDeps> = {}) {
  return createOpenAiEmbedder({ client, model: "text-embedding-3-small", dimensions: 64, retryBaseMs: 1, ...overrides });
}

const norm = (vector: readonly number[]) => Math.hypot(...vector);
const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);
const unit = (vector: readonly number[]) => vector.map((x) => x / norm(vector));

describe("openai embedder", () => {
  it("names the model with its dimensions and sends them, the key and base64 encoding", async () => {
    const e = await embedder();
    expect(e.model).toBe("openai:text-embedding-3-small@64");
    expect(e.dimensions).toBe(64);
    expect(server.requests).toHaveLength(0); // dimensions given: no probe

    const [vector] = await e.embed(["copper kettle"]);
    const request = server.embeddingRequests()[0];
    expect(request?.headers.authorization).toBe("Bearer test-key");
    expect(embeddingsBody(request)).toEqual({
      model: "text-embedding-3-small",
      input: ["copper kettle"],
      dimensions: 64,
      encoding_format: "base64",
    });
    expect(vector).toHaveLength(64);
    // float32 on the wire, so equal to float32 precision
    for (const [i, x] of unit(hashEmbedding("copper kettle", 64)).entries()) expect(vector?.[i]).toBeCloseTo(x, 6);
  });

  it("returns unit-length vectors, also from a server that ignores base64 and sends floats", async () => {
    server.onEmbeddings((body) => ({
      json: { data: inputsOf(body).map((text, index) => ({ index, embedding: hashEmbedding(text, 64).map((x) => x * 7) })) },
    }));
    const vectors = await (await embedder()).embed(["red kettle", "blue teapot with a long spout"]);
    for (const vector of vectors) expect(norm(vector)).toBeCloseTo(1, 12);
    for (const [i, x] of unit(hashEmbedding("red kettle", 64)).entries()) expect(vectors[0]?.[i]).toBeCloseTo(x, 12);
  });

  it("batches inputs and keeps input order", async () => {
    const texts = Array.from({ length: 600 }, (_, i) => `product number ${i} colour ${i % 7}`);
    const vectors = await (await embedder({ batchSize: 256 })).embed(texts);
    expect(server.embeddingRequests().map((request) => inputsOf(embeddingsBody(request)).length)).toEqual([256, 256, 88]);
    expect(inputsOf(embeddingsBody(server.embeddingRequests()[2]))[0]).toBe("product number 512 colour 1");
    expect(vectors).toHaveLength(600);
    for (const [i, text] of texts.entries()) expect(dot(vectors[i] ?? [], unit(hashEmbedding(text, 64)))).toBeCloseTo(1, 5);
  });

  it("places embeddings by their index, whatever order the server sends them in", async () => {
    server.onEmbeddings((body) => {
      const reply = hashEmbeddingsHandler(body, server.requests[0]!);
      const json = (reply as { json: { data: unknown[] } }).json;
      return { json: { ...json, data: [...json.data].reverse() } };
    });
    const vectors = await (await embedder()).embed(["alpha", "beta", "gamma"]);
    expect(dot(vectors[0] ?? [], unit(hashEmbedding("alpha", 64)))).toBeCloseTo(1, 5);
    expect(dot(vectors[2] ?? [], unit(hashEmbedding("gamma", 64)))).toBeCloseTo(1, 5);
  });

  it("does not send empty texts: they get a fixed unit vector", async () => {
    const e = await embedder();
    const vectors = await e.embed(["", "kettle", "   "]);
    expect(inputsOf(embeddingsBody(server.embeddingRequests()[0]))).toEqual(["kettle"]);
    expect(vectors[0]).toEqual(vectors[2]);
    expect(norm(vectors[0] ?? [])).toBe(1);
    expect(await e.embed([""])).toHaveLength(1);
    expect(await e.embed([])).toEqual([]);
    expect(server.embeddingRequests()).toHaveLength(1);
  });

  it("gives vectors that retrieve by shared words", async () => {
    const e = await embedder({ dimensions: 256 });
    const [query, ...docs] = await e.embed(["red kettle", "copper kettle red enamel", "blue hiking jacket", "espresso beans dark roast"]);
    const scores = docs.map((doc) => dot(query ?? [], doc));
    expect(scores.indexOf(Math.max(...scores))).toBe(0);
  });

  it("uses the model's native length without sending dimensions, and probes an unknown model once", async () => {
    const known = await embedder({ dimensions: undefined });
    expect(known.model).toBe("openai:text-embedding-3-small@1536");
    expect(server.requests).toHaveLength(0);
    await known.embed(["x"]);
    expect(embeddingsBody(server.embeddingRequests()[0]).dimensions).toBeUndefined();

    server.reset();
    server.onEmbeddings((body) =>
      embeddingsReply(
        body,
        inputsOf(body).map((text) => hashEmbedding(text, 384)),
      ),
    );
    const probed = await embedder({ model: "bge-small", dimensions: undefined });
    expect(probed.model).toBe("openai:bge-small@384");
    expect(probed.dimensions).toBe(384);
    expect(server.embeddingRequests()).toHaveLength(1);
  });
});

describe("openai embedder: bad answers and failures", () => {
  it("rejects vectors of the wrong length, naming the model", async () => {
    server.onEmbeddings((body) =>
      embeddingsReply(
        body,
        inputsOf(body).map((text) => hashEmbedding(text, 32)),
      ),
    );
    await expect((await embedder()).embed(["kettle"])).rejects.toThrow(
      "openai:text-embedding-3-small@64: embedding 0 has 32 dimensions, expected 64",
    );
    expect(server.embeddingRequests()).toHaveLength(1); // a bad answer is not retried
  });

  it("rejects the wrong number of embeddings, repeated indices and non-lists", async () => {
    const e = await embedder();
    server.queueEmbeddings((body) => embeddingsReply(body, [hashEmbedding("a", 64)]));
    await expect(e.embed(["a", "b"])).rejects.toThrow("openai:text-embedding-3-small@64: 1 embeddings returned for 2 inputs");
    server.queueEmbeddings({ json: { data: [0, 0].map(() => ({ index: 0, embedding: hashEmbedding("a", 64) })) } });
    await expect(e.embed(["a", "b"])).rejects.toThrow(/index 0 is out of range or repeated/);
    server.queueEmbeddings({ json: { object: "list", data: "nope" } });
    await expect(e.embed(["a"])).rejects.toThrow(/not an embeddings list/);
    server.queueEmbeddings((body) => embeddingsReply(body, [new Array<number>(64).fill(0)]));
    await expect(e.embed(["a"])).rejects.toThrow(/embedding 0 has norm 0/);
  });

  it("retries 429 and 5xx with backoff, honouring Retry-After", async () => {
    server.queueEmbeddings(errorReply(429, { headers: { "retry-after-ms": "60" } }), errorReply(500), errorReply(503));
    const started = performance.now();
    const vectors = await (await embedder()).embed(["kettle"]);
    expect(vectors).toHaveLength(1);
    expect(server.embeddingRequests()).toHaveLength(4);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });

  it("gives up after maxRetries with an error naming the model and the status", async () => {
    server.onEmbeddings(() => errorReply(500, { message: "upstream broke" }));
    await expect((await embedder({ maxRetries: 2 })).embed(["kettle"])).rejects.toThrow(
      "openai:text-embedding-3-small@64: embeddings request failed after 3 attempts: 500 upstream broke",
    );
    expect(server.embeddingRequests()).toHaveLength(3);
  });

  it("does not retry a 4xx, and masks the API key should the server echo it", async () => {
    server.onEmbeddings(() => errorReply(401, { code: "invalid_api_key", message: "Incorrect API key provided: test-key." }));
    const error = await (await embedder()).embed(["kettle"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).toBe(
      "EmbeddingError: openai:text-embedding-3-small@64: embeddings request failed: 401 Incorrect API key provided: [redacted].",
    );
    expect(server.embeddingRequests()).toHaveLength(1);
  });

  it("refuses after close and rejects impossible settings", async () => {
    const e = await embedder();
    await e.close();
    await expect(e.embed(["a"])).rejects.toThrow(/closed/);
    await expect(embedder({ batchSize: 0 })).rejects.toThrow(RangeError);
    await expect(embedder({ batchSize: 4096 })).rejects.toThrow(RangeError);
    await expect(embedder({ dimensions: 0 })).rejects.toThrow(RangeError);
  });
});
