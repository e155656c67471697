/**
 * One process owns an embedded data dir. The owner writes `catalog.lock`
 * (pid, what it is, and, for a server, the unix socket through which other
 * processes reach its database). A lock whose process is gone is stale and
 * is taken over.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

const HolderSchema = z.object({
  pid: z.number().int(),
  role: z.string(),
  startedAt: z.string(),
  socket: z.string().nullable(),
});
export type LockHolder = z.infer<typeof HolderSchema>;

export type LockResult = { acquired: true; release: () => void } | { acquired: false; holder: LockHolder };

/** Whether a process with this id runs (EPERM: it does, as another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readHolder(path: string): LockHolder | null {
  try {
    const parsed = HolderSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function lockPath(dataDir: string): string {
  return join(dataDir, "catalog.lock");
}

export function acquireDataDir(dataDir: string, role: string, socket: string | null): LockResult {
  mkdirSync(dataDir, { recursive: true });
  const path = lockPath(dataDir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      const holder: LockHolder = { pid: process.pid, role, startedAt: new Date().toISOString(), socket };
      writeSync(fd, JSON.stringify(holder));
      closeSync(fd);
      return {
        acquired: true,
        release: () => {
          if (readHolder(path)?.pid === process.pid) rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = readHolder(path);
      if (holder && holder.pid !== process.pid && isAlive(holder.pid)) return { acquired: false, holder };
      // Stale (its process died, e.g. kill -9) or unreadable half-written lock: take it over.
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not take the lock ${path}`);
}
