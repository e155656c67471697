/**
 * Where `catalog export` writes its lines: `--out FILE` or stdout, each line awaited while the stream drains, so a
 * slow reader holds the export back instead of filling memory. A stream that fails (a full disk, a reader that
 * closed the pipe: `export … | head`) ends the export with one line saying so, not a stack trace.
 */
import { type FileHandle, open } from "node:fs/promises";
import type { Writable } from "node:stream";

/** Writing to the export's output failed: the message names the output and the system's reason. */
export class OutputError extends Error {
  override readonly name = "OutputError";
}

export interface Sink {
  write(line: string): Promise<void> | void;
  close(): Promise<void>;
}

const reason = (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

/** `--out FILE` (created or truncated), or an OutputError when it cannot be opened for writing. */
export async function fileSink(path: string): Promise<Sink> {
  let file: FileHandle;
  try {
    file = await open(path, "w");
  } catch (error) {
    throw new OutputError(`--out ${path}: cannot write the file (${reason(error)})`);
  }
  return streamSink(file.createWriteStream(), `--out ${path}`);
}

/** A stream as a sink; `name` says which output failed. Closing ends it (stdout is only flushed, never ended). */
export function streamSink(stream: Writable, name: string, end = true): Sink {
  let failed: unknown;
  // Kept for the whole export: an error between writes (EPIPE arrives after the write that caused it) is not lost.
  stream.on("error", (error) => {
    failed ??= error;
  });
  const check = () => {
    if (failed !== undefined) throw new OutputError(`${name}: cannot write (${reason(failed)}); the export stopped`);
  };
  return {
    write(line) {
      check();
      if (stream.write(`${line}\n`)) return;
      return new Promise<void>((resolve) => {
        const done = () => {
          stream.off("drain", done);
          stream.off("error", done);
          resolve();
        };
        stream.once("drain", done);
        stream.once("error", done);
      }).then(check);
    },
    async close() {
      if (end) await new Promise<void>((resolve) => stream.end(resolve));
      check();
    },
  };
}
