/**
 * The encoder in worker threads (ENCODER_THREADS): the same vectors as on the main thread, and a thread that
 * dies loses no call: it is restarted and its calls are sent again, once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Embedder } from "../../server/search/embedder.js";
import { createThreadedEmbedder, EncoderCrashedError } from "../../server/search/embedders/threads.js";
import { sharedEmbedder } from "../helpers/embedder.js";

const DIES = new URL("../fixtures/encoder/dies.ts", import.meta.url);
const SLOW_BACKEND = new URL("../fixtures/encoder/slow-backend.ts", import.meta.url);
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "encoder-threads-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cosine(a: readonly number[], b: readonly number[]): number {
  return a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);
}

describe("the threaded encoder", () => {
  it("embeds as the encoder on the main thread does, calls made together included", async () => {
    const threaded = await createThreadedEmbedder({ threads: 1 });
    try {
      const local = await sharedEmbedder();
      const texts = ["cast iron skillet", "running shoes for trail", ""];
      const [together, alone] = await Promise.all([threaded.embed(texts), threaded.embed(["waterproof tent"])]);
      const expected = await local.embed([...texts, "waterproof tent"]);
      expect(threaded.model).toBe(local.model);
      expect(threaded.dimensions).toBe(local.dimensions);
      for (const [i, vector] of [...together!, ...alone!].entries()) expect(cosine(vector, expected[i]!)).toBeGreaterThan(0.999);
    } finally {
      await threaded.close();
    }
  });

  it("spreads a batch of an import over its threads, answering each text's vector in the order given", async () => {
    // One thread to start with: the batch starts the second.
    const threaded = await createThreadedEmbedder({ threads: 1, spreadTo: 2 });
    try {
      // Lengths out of order, so the dealing by length and the putting back in order both show.
      const texts = Array.from({ length: 70 }, (_, i) => `${"very ".repeat((i * 7) % 11)}product number ${i}`);
      const [spread, expected] = await Promise.all([threaded.embed(texts), (await sharedEmbedder()).embed(texts)]);
      expect(spread).toHaveLength(texts.length);
      for (const [i, vector] of spread.entries()) expect(cosine(vector, expected[i]!)).toBeGreaterThan(0.999);
    } finally {
      await threaded.close();
    }
  });

  it("starts when the TF.js backend is slower to initialise than the model's weights are to read", async () => {
    const slow = await createThreadedEmbedder({ threads: 1, entry: SLOW_BACKEND });
    try {
      await expect(slow.embed(["kettle"])).resolves.toHaveLength(1);
    } finally {
      await slow.close();
    }
  });

  describe("when a thread dies", () => {
    let threaded: Embedder;
    const warnings: string[] = [];
    beforeAll(async () => {
      threaded = await createThreadedEmbedder({ threads: 1, entry: DIES, warn: (message) => warnings.push(message) });
    });
    afterAll(() => threaded.close());

    it("restarts it and answers the call it died on, and the calls it held", async () => {
      const marker = join(dir, "died-once");
      const calls = [threaded.embed([`die-once:${marker}`]), threaded.embed(["kettle"]), threaded.embed(["lamp"])];
      const answers = await Promise.all(calls);
      expect(answers.map((vectors) => vectors.length)).toEqual([1, 1, 1]);
      expect(warnings.some((message) => /died .*restarting/.test(message))).toBe(true);
    });

    it("fails a call that kills a second thread too, and keeps serving the others", async () => {
      const doomed = threaded.embed(["die-always"]);
      const fine = threaded.embed(["headphones"]);
      await expect(doomed).rejects.toBeInstanceOf(EncoderCrashedError);
      await expect(fine).resolves.toHaveLength(1);
      await expect(threaded.embed(["saucepan"])).resolves.toHaveLength(1);
    });
  });
});
