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

/** Anything shaped like a key in free text (a URL, a header, a log line), any case. */
const KEY_IN_TEXT = /pcl_(?:live|test)_[1-9A-HJ-NP-Za-km-z]+/gi;
const HAS_KEY = /pcl_(?:live|test)_[1-9A-HJ-NP-Za-km-z]/i;
/** One percent escape; all of them. */
const ESCAPE = /%[0-9a-f]{2}/i;
const ESCAPES = /%[0-9a-f]{2}/gi;
/**
 * How many rounds of percent-decoding are looked through: `%5F` is one, `%255F` two. Deeper than this is no client's
 * mistake; what is still encoded past it is redacted whole rather than trusted (see redactKeys).
 */
const MAX_DECODES = 8;
const REDACTED = "[redacted]";

/** A text as characters, each with the span of the original text it came from (a decoded escape spans all its bytes). */
interface Layer {
  text: string;
  from: number[];
  to: number[];
}

/** The layer with every `%XX` decoded once (a byte as one character: keys are ASCII), or null when there is none. */
function decodeOnce(layer: Layer): Layer | null {
  const next: Layer = { text: "", from: [], to: [] };
  let decoded = false;
  for (let i = 0; i < layer.text.length; i++) {
    const escaped = layer.text[i] === "%" && ESCAPE.test(layer.text.slice(i, i + 3));
    next.text += escaped ? String.fromCharCode(Number.parseInt(layer.text.slice(i + 1, i + 3), 16)) : layer.text[i];
    next.from.push(layer.from[i]!);
    next.to.push(layer.to[escaped ? i + 2 : i]!);
    if (escaped) {
      decoded = true;
      i += 2;
    }
  }
  return decoded ? next : null;
}

/** Whether any round of decoding shows a key (or the rounds run out): cheap, without tracking where each character came from. */
function mayHoldKey(text: string): boolean {
  let layer = text;
  for (let round = 0; round <= MAX_DECODES; round++) {
    if (HAS_KEY.test(layer)) return true;
    const next = layer.replace(ESCAPES, (code) => String.fromCharCode(Number.parseInt(code.slice(1), 16)));
    if (next === layer) return false;
    layer = next;
  }
  return true;
}

/** The spans of the original text that hold a key once decoded 0…MAX_DECODES times, or that stay encoded past that. */
function keySpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  const positions = Array.from({ length: text.length }, (_, i) => i);
  let layer: Layer | null = { text, from: positions, to: positions };
  for (let round = 0; layer !== null; round++) {
    for (const match of layer.text.matchAll(KEY_IN_TEXT)) {
      spans.push([layer.from[match.index]!, layer.to[match.index + match[0].length - 1]! + 1]);
    }
    const next = decodeOnce(layer);
    if (next !== null && round === MAX_DECODES) {
      // Still encoded after every round looked through: whatever it hides is not trusted to be no key.
      for (const match of layer.text.matchAll(/(?:%[0-9a-f]{2})+[\w%]*/gi)) {
        spans.push([layer.from[match.index]!, layer.to[match.index + match[0].length - 1]! + 1]);
      }
      break;
    }
    layer = next;
  }
  return spans;
}

/**
 * The text with every key replaced, for logs: as written, and percent-encoded any number of times up to MAX_DECODES
 * (`%70cl_…`, `pcl%5Ftest…`, `pcl%255Ftest…`, any case). The rest of the text is kept as it was, so a JSON line stays JSON.
 */
export function redactKeys(text: string): string {
  // The common case, a line with no escape and no key, costs one scan.
  if (!text.includes("%")) return text.replace(KEY_IN_TEXT, REDACTED);
  if (!mayHoldKey(text)) return text;
  const spans = keySpans(text).sort((a, b) => a[0] - b[0]);
  if (spans.length === 0) return text;
  let out = "";
  let at = 0;
  for (const [start, end] of spans) {
    // Spans found in different rounds may overlap: each stretch of the original is redacted once.
    if (end <= at) continue;
    if (start >= at) out += `${text.slice(at, start)}${REDACTED}`;
    at = end;
  }
  return out + text.slice(at);
}
