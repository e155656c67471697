/**
 * server/cache.ts refreshedEvery: a catalog fact read at most once per ttl, where only the first read is waited for
 * and a later one runs behind the callers (at a million products such a read takes seconds).
 */
import { describe, expect, it } from "vitest";
import { refreshedEvery } from "../../server/cache.js";

/** A read the test answers by hand, the oldest pending first, counting the reads started. */
function manualRead() {
  const pending: { resolve: (value: number) => void; reject: (error: Error) => void }[] = [];
  let started = 0;
  return {
    read: () =>
      new Promise<number>((resolve, reject) => {
        started++;
        pending.push({ resolve, reject });
      }),
    answer: (value: number) => pending.shift()!.resolve(value),
    fail: () => pending.shift()!.reject(new Error("down")),
    get started() {
      return started;
    },
  };
}

describe("refreshedEvery", () => {
  it("waits for the first read only; past the ttl, answers the last value at once and reads again behind", async () => {
    let clock = 0;
    const source = manualRead();
    const fact = refreshedEvery(source.read, 1_000, () => clock);
    const [a, b] = [fact(), fact()];
    source.answer(1);
    expect(await Promise.all([a, b])).toEqual([1, 1]);
    expect(source.started).toBe(1);

    clock = 500;
    expect(await fact()).toBe(1);
    expect(source.started).toBe(1);

    clock = 1_500;
    expect(await fact()).toBe(1); // not waiting for the read it started
    expect(await fact()).toBe(1); // nor starting another
    expect(source.started).toBe(2);
    source.answer(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await fact()).toBe(2);
  });

  it("keeps the last value when a read behind fails, and reads again on the next call", async () => {
    let clock = 0;
    const source = manualRead();
    const fact = refreshedEvery(source.read, 1_000, () => clock);
    const first = fact();
    source.answer(1);
    await first;
    clock = 2_000;
    expect(await fact()).toBe(1);
    source.fail();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await fact()).toBe(1);
    expect(source.started).toBe(3);
  });

  it("does not keep a failed first read: the next caller reads again and waits", async () => {
    const source = manualRead();
    const fact = refreshedEvery(source.read, 1_000, () => 0);
    const first = fact();
    source.fail();
    await expect(first).rejects.toThrow("down");
    const second = fact();
    source.answer(7);
    expect(await second).toBe(7);
  });
});
