import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type Admission, createAdmission, OverloadedError, type Rejection } from "../../server/api/admission.js";

/** A search that runs until the test ends it. */
function gate(): { work: () => Promise<string>; finish(value: string): void; started: boolean } {
  let finish!: (value: string) => void;
  const handle = {
    started: false,
    work: () => {
      handle.started = true;
      return new Promise<string>((resolve) => {
        finish = resolve;
      });
    },
    finish: (value: string) => finish(value),
  };
  return handle;
}

function recorder() {
  const waits: number[] = [];
  const rejections: Rejection[] = [];
  return { waits, rejections, observer: { admitted: (s: number) => waits.push(s), rejected: (r: Rejection) => rejections.push(r) } };
}

describe("search admission", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs up to `concurrency` at once, queues the next in order, and refuses past the queue at once", async () => {
    const seen = recorder();
    const admission = createAdmission({ concurrency: 2, queueLength: 1, queueTimeoutMs: 1000 }, seen.observer);
    const [a, b, c] = [gate(), gate(), gate()];
    const runA = admission.run("k1", a.work);
    const runB = admission.run("k2", b.work);
    const runC = admission.run("k3", c.work);
    expect([a.started, b.started, c.started]).toEqual([true, true, false]);
    expect(admission.state()).toMatchObject({ running: 2, queued: 1 });

    const refused = admission.run("k4", gate().work);
    await expect(refused).rejects.toBeInstanceOf(OverloadedError);
    await expect(refused).rejects.toMatchObject({ code: "overloaded", reason: "queue_full" });
    expect(seen.rejections).toEqual(["queue_full"]);

    a.finish("a");
    await expect(runA).resolves.toBe("a");
    expect(c.started).toBe(true);
    b.finish("b");
    c.finish("c");
    await expect(Promise.all([runB, runC])).resolves.toEqual(["b", "c"]);
    expect(admission.state()).toMatchObject({ running: 0, queued: 0 });
  });

  it("refuses a search that waited the queue timeout, with a Retry-After of at least a second", async () => {
    const seen = recorder();
    const admission = createAdmission({ concurrency: 1, queueLength: 5, queueTimeoutMs: 500 }, seen.observer);
    const running = gate();
    void admission.run("k1", running.work);
    const waiting = gate();
    const waited = admission.run("k2", waiting.work);
    const outcome = waited.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(500);
    const error = await outcome;
    expect(error).toBeInstanceOf(OverloadedError);
    expect(error).toMatchObject({ reason: "queue_timeout" });
    expect((error as OverloadedError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(waiting.started).toBe(false);
    expect(admission.state().queued).toBe(0);
    // The slot it would have had goes to the next one.
    running.finish("done");
    const later = gate();
    const run = admission.run("k3", later.work);
    await vi.advanceTimersByTimeAsync(0);
    expect(later.started).toBe(true);
    later.finish("later");
    await expect(run).resolves.toBe("later");
    expect(seen.rejections).toEqual(["queue_timeout"]);
  });

  it("frees the slot of a search that fails", async () => {
    const admission = createAdmission({ concurrency: 1, queueLength: 1, queueTimeoutMs: 1000 });
    const failing = admission.run("k1", () => Promise.reject(new Error("database gone")));
    const next = gate();
    const run = admission.run("k1", next.work);
    await expect(failing).rejects.toThrow("database gone");
    expect(next.started).toBe(true);
    next.finish("ok");
    await expect(run).resolves.toBe("ok");
  });

  it("lets waiting clients take turns: a client with a backlog does not keep another waiting behind all of it", async () => {
    const admission = createAdmission({ concurrency: 1, queueLength: 100, queueTimeoutMs: 60_000 });
    const order: string[] = [];
    const finishers: (() => void)[] = [];
    const search = (client: string, name: string) =>
      admission.run(client, () => {
        order.push(name);
        return new Promise<void>((resolve) => finishers.push(resolve));
      });
    const runs = [search("abuser", "x0")];
    for (let i = 1; i <= 10; i++) runs.push(search("abuser", `x${i}`));
    runs.push(search("user", "u1"));
    // Each search ends when the test says; after the first two, the user's search has had its turn.
    for (let i = 0; i < 3; i++) {
      finishers.shift()?.();
      await vi.advanceTimersByTimeAsync(0);
    }
    expect(order.slice(0, 3)).toEqual(["x0", "x1", "u1"]);
    while (finishers.length > 0) {
      finishers.shift()?.();
      await vi.advanceTimersByTimeAsync(0);
    }
    await Promise.all(runs);
    expect(order).toHaveLength(12);
  });

  it("with the queue full, refuses the client with the most waiting rather than a client with none", async () => {
    const seen = recorder();
    const admission = createAdmission({ concurrency: 1, queueLength: 4, queueTimeoutMs: 60_000 }, seen.observer);
    void admission.run("abuser", gate().work);
    const backlog = [1, 2, 3, 4].map(() => admission.run("abuser", gate().work).catch((error: unknown) => error));
    // The abuser's fifth waiter is refused: it already has the whole queue.
    await expect(admission.run("abuser", gate().work)).rejects.toMatchObject({ reason: "queue_full" });
    // A newcomer gets in, and the abuser's newest waiter gives up its place.
    const user = gate();
    void admission.run("user", user.work);
    expect(admission.state().queued).toBe(4);
    expect(await backlog[3]).toBeInstanceOf(OverloadedError);
    expect(seen.rejections).toEqual(["queue_full", "queue_full"]);
    // Another newcomer pushes out another of the abuser's; then abuser 2, user 1, user2 1: user's second search is refused.
    void admission.run("user2", gate().work);
    expect(await backlog[2]).toBeInstanceOf(OverloadedError);
    await expect(admission.run("user", gate().work)).rejects.toMatchObject({ reason: "queue_full" });
  });

  it("does not queue at all when concurrency is 0 (admission off)", async () => {
    const admission: Admission = createAdmission({ concurrency: 0, queueLength: 0, queueTimeoutMs: 1 });
    const runs = Array.from({ length: 50 }, (_, i) => admission.run("k", async () => i));
    await expect(Promise.all(runs)).resolves.toHaveLength(50);
  });
});
