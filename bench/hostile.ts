/**
 * npm run bench:hostile — the work a hostile page, host or client can cause, each figure beside a baseline measured
 * in the same run (a benign input of the same size, or an idle client) and its goal. Every file of bench/hostile/
 * but part.ts exports `part: HostilePart`; this runner runs them in name order and exits non-zero when a goal fails.
 * Run one part with `npm run bench:hostile -- NAME` (its file name without .ts).
 */
import { readdirSync } from "node:fs";
import type { HostileFigure, HostilePart } from "./hostile/part.js";

const only = process.argv[2];
const dir = new URL("./hostile/", import.meta.url);
const files = readdirSync(dir)
  .filter((file) => file.endsWith(".ts") && file !== "part.ts" && (!only || file === `${only}.ts`))
  .sort();
if (files.length === 0) throw new Error(`no part of bench/hostile/ is named ${only}`);

const row = (figure: HostileFigure) => {
  const base = figure.baseline ? `${figure.baseline.name}: ${figure.baseline.value.toFixed(1)} ${figure.unit}` : "";
  const ratio = figure.baseline ? ` (${(figure.value / figure.baseline.value).toFixed(2)}×)` : "";
  return `| ${figure.name} | ${figure.value.toFixed(1)} ${figure.unit}${ratio} | ${base} | ${figure.goal} | ${figure.met ? "met" : "NOT MET"} |`;
};

let failed = 0;
for (const file of files) {
  const { part } = (await import(new URL(file, dir).href)) as { part: HostilePart };
  console.log(`\n## ${part.title}\n\n| measure | value | baseline (same run) | goal | |\n|---|---|---|---|---|`);
  for (const figure of await part.run()) {
    console.log(row(figure));
    if (!figure.met) failed++;
  }
}
console.log(failed === 0 ? "\nEvery goal met." : `\n${failed} goal(s) not met.`);
process.exitCode = failed === 0 ? 0 : 1;
