/** bench:million's generator thread (million-data.ts `productLinesThreaded`): the text of the lines asked for. */
import { parentPort, workerData } from "node:worker_threads";
import { type NamePool, productTexts } from "./million-data.js";

const { pool, count } = workerData as { pool: NamePool; count: number };
parentPort?.on("message", ({ from, to }: { from: number; to: number }) => {
  parentPort?.postMessage([...productTexts(pool, count, from, to)]);
});
