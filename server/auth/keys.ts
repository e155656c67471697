/**
 * API key format, generation and hashing: pure functions, no I/O.
 *
 * A key is `pcl_live_` (prod) or `pcl_test_` (dev) followed by base58 of
 * [version, length, ...32 random bytes]. Only its SHA-256 is stored, with a
 * short non-secret `start` for recognising it in listings. A fast hash is
 * right here: the key has 256 random bits, so there is nothing to brute-force.
 */
import { getRandomValues, hash } from "node:crypto";

export type KeyEnvironment = "dev" | "prod";
const PREFIX: Record<KeyEnvironment, string> = { prod: "pcl_live_", dev: "pcl_test_" };
const VERSION = 1;
const RANDOM_BYTES = 32;
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const KEY_PATTERN = /^pcl_(live|test)_[1-9A-HJ-NP-Za-km-z]{40,60}$/;

export function base58(bytes: Uint8Array): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = "";
  while (value > 0n) {
    out = ALPHABET[Number(value % 58n)] + out;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}

export function hashKey(key: string): string {
  return hash("sha256", key, "hex");
}

/** Cheap shape check before any hashing or lookup. */
export function looksLikeKey(candidate: string): boolean {
  return KEY_PATTERN.test(candidate);
}

export interface NewKey {
  key: string;
  hash: string;
  start: string;
}

export function generateKey(environment: KeyEnvironment, random: (bytes: Uint8Array) => Uint8Array = getRandomValues): NewKey {
  const payload = new Uint8Array(2 + RANDOM_BYTES);
  payload[0] = VERSION;
  payload[1] = RANDOM_BYTES;
  random(payload.subarray(2));
  const key = `${PREFIX[environment]}${base58(payload)}`;
  return { key, hash: hashKey(key), start: key.slice(0, PREFIX[environment].length + 6) };
}

export function generateKeyId(random: (bytes: Uint8Array) => Uint8Array = getRandomValues): string {
  return `key_${base58(random(new Uint8Array(12)))}`;
}

/** The key from an `Authorization` header: the key itself, or `Bearer <key>`. */
export function keyFromAuthorization(header: string | undefined): string | null {
  if (!header) return null;
  const value = header
    .trim()
    .replace(/^bearer(\s+|$)/i, "")
    .trim();
  return value.length > 0 ? value : null;
}

/** Anything shaped like a key in free text (a URL, a header), also with `_` percent-encoded. */
const KEY_IN_TEXT = /pcl(?:_|%5f)(?:live|test)(?:_|%5f)[1-9A-HJ-NP-Za-km-z]+/gi;

/** The text with every key-shaped run replaced, for logs. */
export function redactKeys(text: string): string {
  return text.replace(KEY_IN_TEXT, "[redacted]");
}
