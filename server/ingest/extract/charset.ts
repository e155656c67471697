/**
 * Bytes of a saved page to text: gunzip when gzipped, then the encoding from
 * a byte-order mark, else from the HTTP answer's `Content-Type` charset (a
 * fetched page), else from `<meta charset>` or `<meta http-equiv=
 * Content-Type content="…; charset=…">` in the first 64 KiB, else UTF-8 when
 * the bytes are valid UTF-8, else windows-1252 (what browsers assume).
 * Node's TextDecoder carries full ICU, so legacy encodings decode.
 */
import { open } from "node:fs/promises";
import { TextDecoder } from "node:util";
import { gunzipSync } from "node:zlib";
import { overCap } from "../limits.js";

/** A page over IMPORT_MAX_PAGE_BYTES: refused before it is parsed. */
export class PageTooLargeError extends Error {
  override readonly name = "PageTooLargeError";
  constructor(maxBytes: number, size?: number) {
    super(overCap("page", "IMPORT_MAX_PAGE_BYTES", maxBytes, size));
  }
}

export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/**
 * Page bytes to text; `maxBytes` caps the page as read (after gunzip), unset only for trusted pages (tests,
 * benchmarks). `transportCharset`: what the HTTP answer's Content-Type said, which outranks the markup's.
 */
export function decodePage(input: Uint8Array, maxBytes: number = Number.POSITIVE_INFINITY, transportCharset?: string): string {
  if (input.length > maxBytes) throw new PageTooLargeError(maxBytes, input.length);
  const bytes = isGzip(input) ? gunzip(input, maxBytes) : input;
  const bom = bomEncoding(bytes);
  if (bom) return new TextDecoder(bom.encoding).decode(bytes.subarray(bom.length));
  // A label no decoder knows is passed over for the next one.
  for (const declared of [transportCharset?.trim().toLowerCase(), declaredCharset(bytes)]) {
    const decoder = declared ? decoderFor(declared) : undefined;
    if (decoder) return decoder.encoding === "windows-1252" ? fixWindows1252(decoder.decode(bytes)) : decoder.decode(bytes);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return fixWindows1252(new TextDecoder("windows-1252").decode(bytes));
  }
}

/** windows-1252's 0x80–0x9F (€, curly quotes, dashes…). */
const WINDOWS_1252_HIGH = "€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ";

/**
 * Node 20's TextDecoder decodes windows-1252 (and the labels the WHATWG
 * Encoding spec maps to it: latin1, iso-8859-1, ascii) as ISO-8859-1, leaving
 * 0x80–0x9F as C1 controls; this maps them as the spec and browsers do.
 */
export function fixWindows1252(text: string): string {
  return /[\u0080-\u009f]/.test(text) ? text.replace(/[\u0080-\u009f]/g, (char) => WINDOWS_1252_HIGH[char.charCodeAt(0) - 0x80] ?? char) : text;
}

function bomEncoding(bytes: Uint8Array): { encoding: string; length: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: "utf-8", length: 3 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: "utf-16be", length: 2 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: "utf-16le", length: 2 };
  return undefined;
}

/** The charset a page declares in its markup (ASCII-compatible encodings only, as browsers prescan). */
export function declaredCharset(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 65_536));
  for (const match of head.matchAll(/<meta\b[^>]*>/gi)) {
    // <meta charset="…"> and <meta http-equiv="Content-Type" content="text/html; charset=…"> alike.
    const found = /\bcharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(match[0]);
    if (found) return found[1]!.toLowerCase();
  }
  const xml = /^<\?xml[^>]*encoding=["']([\w.:-]+)["']/i.exec(head);
  return xml ? xml[1]!.toLowerCase() : undefined;
}

function decoderFor(label: string): TextDecoder | undefined {
  // A page that says UTF-16 in ASCII bytes is not UTF-16 (the HTML spec reads it as UTF-8).
  const normalised = /^utf-?16/.test(label) ? "utf-8" : label;
  try {
    return new TextDecoder(normalised);
  } catch {
    return undefined;
  }
}

function gunzip(input: Uint8Array, maxBytes: number): Uint8Array {
  try {
    return new Uint8Array(gunzipSync(input, Number.isFinite(maxBytes) ? { maxOutputLength: maxBytes } : {}));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw new PageTooLargeError(maxBytes);
    throw error;
  }
}

/** Reads a saved page (`.html`, `.htm`, `.html.gz`, or any gzip) to text; a file over `maxBytes` is refused unread. */
export async function readPage(path: string, maxBytes: number): Promise<string> {
  const file = await open(path);
  try {
    const { size } = await file.stat();
    if (size > maxBytes) throw new PageTooLargeError(maxBytes, size);
    const bytes = await file.readFile();
    return decodePage(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), maxBytes);
  } finally {
    await file.close();
  }
}
