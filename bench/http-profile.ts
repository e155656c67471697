/**
 * Summarises a V8 .cpuprofile (node --cpu-prof) for npm run bench:http --profile:
 * where the server's CPU time went, by package or source file and by function,
 * both self time and inclusive time (a frame's callees counted once per sample).
 */
import { readFileSync } from "node:fs";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** A package name, a project file, or a V8 pseudo-frame such as (garbage collector). */
function area(frame: CallFrame, root: string): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith("(") ? functionName : "(native/V8 builtins)";
  const modules = url.lastIndexOf("/node_modules/");
  if (modules >= 0) {
    const [first, second] = url.slice(modules + "/node_modules/".length).split("/");
    return first?.startsWith("@") ? `${first}/${second}` : (first ?? url);
  }
  if (url.startsWith("node:"))
    return url
      .replace(/^node:internal\//, "node:")
      .split("/")
      .slice(0, 2)
      .join("/");
  const path = url.replace(/^file:\/\//, "");
  return path.startsWith(root) ? path.slice(root.length) : path;
}

function frameName(frame: CallFrame, root: string): string {
  const where = frame.url ? `${area(frame, root)}:${frame.lineNumber + 1}` : "";
  const name = frame.functionName || "(anonymous)";
  return where && !where.startsWith("(") ? `${name} ${where}` : name;
}

const pct = (value: number, total: number) => `${((100 * value) / total).toFixed(1)}%`.padStart(6);

function top(map: Map<string, number>, total: number, count: number): string[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, us]) => `  ${pct(us, total)}  ${(us / 1000).toFixed(0).padStart(6)} ms  ${name}`);
}

/** Only samples inside `window` (µs of the monotonic clock, which V8's profile timestamps also count) are summarised. */
export function summariseProfile(file: string, root: string, window?: { from: number; to: number }): string {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const selfByArea = new Map<string, number>();
  const selfByFrame = new Map<string, number>();
  const totalByArea = new Map<string, number>();
  const totalByFrame = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);

  let total = 0;
  let idle = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index] ?? 0;
    if (window && (at < window.from || at > window.to)) return;
    // A sample's time is the delta to the next sample.
    const us = profile.timeDeltas[index + 1] ?? 0;
    const node = byId.get(id);
    if (!node) return;
    total += us;
    if (node.callFrame.functionName === "(idle)") {
      idle += us;
      return;
    }
    add(selfByArea, area(node.callFrame, root), us);
    add(selfByFrame, frameName(node.callFrame, root), us);
    const areas = new Set<string>();
    const frames = new Set<string>();
    for (let frameId: number | undefined = id; frameId !== undefined; frameId = parent.get(frameId)) {
      const frame = byId.get(frameId)!.callFrame;
      if (frame.functionName === "(root)") continue;
      areas.add(area(frame, root));
      frames.add(frameName(frame, root));
    }
    for (const key of areas) add(totalByArea, key, us);
    for (const key of frames) add(totalByFrame, key, us);
  });
  const busy = total - idle;
  if (total === 0)
    return `no samples in the measured window (profile ${profile.startTime}–${profile.endTime} µs, window ${window?.from}–${window?.to} µs)`;

  return [
    `sampled ${(total / 1e6).toFixed(1)} s: busy ${(busy / 1e6).toFixed(1)} s (${pct(busy, total).trim()}), idle ${pct(idle, total).trim()}; shares below are of busy time`,
    "",
    "self time by package / file:",
    ...top(selfByArea, busy, 18),
    "",
    "inclusive time by package / file (callees included, each counted once per sample):",
    ...top(totalByArea, busy, 25),
    "",
    "self time by function:",
    ...top(selfByFrame, busy, 25),
    "",
    "inclusive time by function:",
    ...top(totalByFrame, busy, 45),
  ].join("\n");
}
