/**
 * An embedded data dir holds the catalog, every API key's hash and start, and
 * the WAL with recent writes: it is for its owner alone (folders 0700, files 0600).
 *
 * Not `process.umask(0o077)`: the mask belongs to the whole process, so it would
 * also change what else this process writes (the CLI's --report file, an
 * extract's output, temp files of libraries), and it does not reach PGlite's
 * files anyway: Emscripten writes PGlite's initial data dir and then chmods
 * each file to 0666 itself, past any umask (Postgres creates its later files
 * 0600 on its own). So the folder is created 0700, which alone keeps other
 * users out of everything inside, and the modes PGlite set are corrected by
 * walking the tree once it has opened.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const GROUP_AND_OTHERS = 0o077;

/** Creates the data dir for its owner alone (its parents as usual); returns whether it existed already. */
export function createPrivateDir(dir: string): boolean {
  mkdirSync(dirname(resolve(dir)), { recursive: true });
  try {
    mkdirSync(dir, { mode: 0o700 });
    return false;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return true;
  }
}

/** Takes group and other permissions off the dir and everything in it; returns how many entries had any. */
export function restrictToOwner(dir: string): number {
  let loose = 0;
  const visit = (path: string) => {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return; // removed meanwhile
      throw error;
    }
    // chmod follows links: what a link points to is not ours to change.
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & GROUP_AND_OTHERS) !== 0) {
      chmodSync(path, stat.mode & 0o700);
      loose++;
    }
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return loose;
}
