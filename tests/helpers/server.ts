import { readFileSync } from "node:fs";

/** What a real server process (server/main.ts) logs once it listens, is onboarded and has printed any first key. */
export const READY = '"msg":"ready"';

/**
 * The first key a real server issued, from the file its log line names (`key_file`): a server whose stdout is no
 * terminal (a test's pipe) never prints a key (issue 47). "" when it issued none.
 */
export function firstKey(output: string): string {
  const file = /"key_file":"([^"]+)"/.exec(output)?.[1];
  return file ? readFileSync(file, "utf8").trim() : "";
}

/** The id of that first key, from the same log line. */
export function firstKeyId(output: string): string {
  return /"key_id":"(key_\w+)"[^\n]*"key_file"/.exec(output)?.[1] ?? "";
}
