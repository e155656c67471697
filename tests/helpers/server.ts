/** What a real server process (server/main.ts) logs once it listens, is onboarded and has printed any first key. */
export const READY = '"msg":"ready"';
