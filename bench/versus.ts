/**
 * npm run bench:versus -- --base REV [--rounds N] — search latency against an older commit in the same run: REV's
 * tree is exported under bench/.cache/versus/ (sharing this tree's node_modules and cached catalogs), and
 * bench/versus-probe.ts runs there and here in turns, `rounds` times each, so load drifts hit both alike. Prints each
 * side's p50 and p95 over every query of every round, and the ratio of the p95s (issue 48: within 1.2×).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { percentile, relevanceDataPresent } from "./relevance-data.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({ options: { base: { type: "string" }, rounds: { type: "string", default: "3" } } });
if (!values.base) throw new Error("--base REV is required: the commit to compare with (e.g. the one before an issue's work)");
const rounds = Number(values.rounds);

/** REV's files (not its history) beside a link to this tree's node_modules, bench cache and ../shared. */
function exportTree(rev: string): string {
  const commit = execFileSync("git", ["rev-parse", "--short", rev], { cwd: ROOT, encoding: "utf8" }).trim();
  const parent = join(ROOT, "bench", ".cache", "versus");
  const tree = join(parent, commit);
  if (!existsSync(join(tree, ".complete"))) {
    rmSync(tree, { recursive: true, force: true });
    mkdirSync(tree, { recursive: true });
    execFileSync("sh", ["-c", `git archive ${commit} | tar -x -C '${tree}'`], { cwd: ROOT });
    symlinkSync(join(ROOT, "node_modules"), join(tree, "node_modules"));
    // relevance-data.ts finds its data at ../shared from the tree and its catalogs in bench/.cache.
    if (!existsSync(join(parent, "shared"))) symlinkSync(join(ROOT, "..", "shared"), join(parent, "shared"));
    symlinkSync(join(ROOT, "bench", ".cache"), join(tree, "bench", ".cache"));
    execFileSync("touch", [join(tree, ".complete")]);
  }
  copyFileSync(join(ROOT, "bench", "versus-probe.ts"), join(tree, "bench", "versus-probe.ts"));
  return tree;
}

function sample(tree: string): number[] {
  const run = spawnSync(join(ROOT, "node_modules", ".bin", "tsx"), ["bench/versus-probe.ts", "2"], { cwd: tree, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`${tree}: the probe failed\n${run.stderr}`);
  return (JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { ms: number[] }).ms;
}

if (!relevanceDataPresent()) {
  console.log("skipped: ../shared/data/relevance is absent");
} else {
  const sides = [
    { name: `base ${values.base}`, tree: exportTree(values.base), ms: [] as number[] },
    { name: "this tree", tree: ROOT, ms: [] as number[] },
  ];
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      side.ms.push(...sample(side.tree));
      process.stderr.write(`round ${round + 1}: ${side.name} done\n`);
    }
  }
  console.log(`\n${new Date().toISOString().slice(0, 16)}Z, ${cpus().length} × ${cpus()[0]?.model}, load ${loadavg()[0]!.toFixed(1)}`);
  console.log("| side | searches | p50 ms | p95 ms |\n|---|---|---|---|");
  for (const side of sides) {
    console.log(`| ${side.name} | ${side.ms.length} | ${percentile(side.ms, 50).toFixed(1)} | ${percentile(side.ms, 95).toFixed(1)} |`);
  }
  const ratio = percentile(sides[1]!.ms, 95) / percentile(sides[0]!.ms, 95);
  console.log(`\np95 ratio, this tree / base: ${ratio.toFixed(2)}× (goal ≤ 1.20×)`);
}
