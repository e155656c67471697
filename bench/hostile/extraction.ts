/**
 * Extraction of hostile pages (issue 47): CPU per KB of each hostile shape (tests/helpers/hostile-pages.ts) against
 * a benign product page of the same size built in the same run, at 100 KB and 1 MB, unbounded (no budget), so that
 * the figure is the work itself. Goal: within 3× the benign page.
 */
import { extractProduct } from "../../server/ingest/extract/index.js";
import { benignPage, HOSTILE_PAGES } from "../../tests/helpers/hostile-pages.js";
import type { HostileFigure, HostilePart } from "./part.js";

const SIZES = [100 * 1024, 1024 * 1024];
const GOAL = 3;

/** CPU ms per KB of extracting `html`, the median of `runs` runs. */
function cpuPerKb(html: string, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.cpuUsage();
    extractProduct(html);
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]! / (html.length / 1024);
}

export const part: HostilePart = {
  title: "Extraction: CPU per KB of a hostile page against a benign page of the same size (issue 47)",
  async run() {
    const figures: HostileFigure[] = [];
    for (const size of SIZES) {
      const label = size >= 1024 * 1024 ? `${size / 1024 / 1024} MB` : `${size / 1024} KB`;
      const runs = size >= 1024 * 1024 ? 3 : 7;
      const benign = benignPage(size);
      cpuPerKb(benign, 2); // warm up the extractor before the baseline
      const baseline = cpuPerKb(benign, runs);
      for (const [shape, make] of Object.entries(HOSTILE_PAGES)) {
        const value = cpuPerKb(make(size), runs);
        figures.push({
          name: `${shape}, ${label}`,
          value: value * 1000,
          unit: "µs/KB",
          baseline: { name: `benign ${label}`, value: baseline * 1000 },
          goal: `≤ ${GOAL}× benign`,
          met: value <= GOAL * baseline,
        });
      }
    }
    return figures;
  },
};
