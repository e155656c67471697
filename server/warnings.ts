/** The default of every `warn` dependency (db/open.ts, the encoder threads, the word statistics): one `warning: …` line on stderr, outside any request's log. */
export function warnOnStderr(message: string): void {
  process.stderr.write(`warning: ${message}\n`);
}
