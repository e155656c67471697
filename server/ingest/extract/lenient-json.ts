/**
 * JSON as pages really write it. `JSON.parse` first; when that fails, a small
 * recursive-descent parser that accepts what shops get wrong: comments,
 * trailing or missing commas, raw newlines and tabs in strings, single quotes,
 * unquoted keys, stray quotes inside strings, `undefined`/`NaN`, and JSON
 * that was HTML-entity-encoded or wrapped in `<!-- -->` / CDATA.
 */
import { decodeHTML } from "entities";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../sanitize.js";
import { type Budget, UNBOUNDED } from "./budget.js";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Deeper JSON is not product data; refusing it keeps every later walk (hashing, storing) shallow. */
const MAX_DEPTH = MAX_JSON_DEPTH;

class LenientError extends Error {}

/** Parses a whole JSON text leniently; undefined when nothing sensible is there. */
export function parseLenientJson(text: string, budget: Budget = UNBOUNDED): Json | undefined {
  const cleaned = unwrap(text);
  if (cleaned === "") return undefined;
  try {
    const parsed = JSON.parse(cleaned) as Json;
    return nestedDeeperThan(parsed, MAX_DEPTH) ? undefined : parsed;
  } catch {
    // fall through to the lenient parser
  }
  const parsed = tryLenient(cleaned, budget);
  if (parsed !== undefined) return parsed;
  if (/&(quot|#34|#x22|amp|lt|gt|apos|#39);/i.test(cleaned)) return tryLenient(decodeHTML(cleaned), budget);
  return undefined;
}

/** Parses one JSON/JS value starting at `start` (leading whitespace allowed); returns it and where it ended. */
export function parseValueAt(text: string, start: number, budget: Budget = UNBOUNDED): { value: Json; end: number } | undefined {
  const attempt = attemptAt(text, start, budget);
  return "value" in attempt ? attempt : undefined;
}

/** A parse from `start`: the value and its end, or how far the parser read before giving up. */
function attemptAt(text: string, start: number, budget: Budget): { value: Json; end: number } | { reached: number } {
  const parser = new Parser(text, start, budget);
  try {
    const value = parser.value(0);
    return { value, end: parser.pos };
  } catch (error) {
    if (error instanceof LenientError || error instanceof RangeError) return { reached: Math.max(parser.pos, start) };
    throw error;
  }
}

/**
 * How much a search for an assigned value may read, in lengths of its script. A failed attempt can read to the
 * script's end, and a script repeating the marker (`__INITIAL_STATE__=["` 5,000 times) made the attempts quadratic:
 * 7.5 s at 100 KB. Real scripts assign their state once, and a failed attempt there fails within a few characters.
 */
const SCAN_FACTOR = 4;

/**
 * The value assigned after `marker` in a script, e.g. `window.__INITIAL_STATE__ = {…};`,
 * including `JSON.parse("…")` and Nuxt's `(function(a,b){return {…}}(…))`.
 */
export function valueAfter(script: string, marker: string, budget: Budget = UNBOUNDED): Json | undefined {
  let left = SCAN_FACTOR * script.length + 4096;
  /** Where the last `return` search landed: one search serves every marker before it (none found: none later). */
  let returnAt = -1;
  let from = 0;
  while (left > 0) {
    const at = script.indexOf(marker, from);
    if (at < 0) return undefined;
    from = at + marker.length;
    const rest = script.slice(from, from + 400);
    const assign = /^\s*(?:["']?\s*\]\s*)?(?:=|:)\s*/.exec(rest);
    if (!assign) continue;
    let start = from + assign[0].length;
    const head = script.slice(start, start + 200);
    const jsonParse = /^JSON\.parse\(\s*/.exec(head);
    if (jsonParse) {
      const literal = attemptAt(script, start + jsonParse[0].length, budget);
      left -= ("end" in literal ? literal.end : literal.reached) - start;
      if ("value" in literal && typeof literal.value === "string") return parseLenientJson(literal.value, budget);
      continue;
    }
    if (/^\(?\s*function\s*\(/.test(head)) {
      if (returnAt !== Number.POSITIVE_INFINITY && returnAt < start) {
        const found = script.indexOf("return", start);
        returnAt = found < 0 ? Number.POSITIVE_INFINITY : found;
      }
      if (returnAt === Number.POSITIVE_INFINITY) continue;
      start = returnAt + "return".length;
    }
    const parsed = attemptAt(script, start, budget);
    left -= ("end" in parsed ? parsed.end : parsed.reached) - start;
    if ("value" in parsed && typeof parsed.value === "object" && parsed.value !== null) return parsed.value;
  }
  return undefined;
}

function unwrap(text: string): string {
  let out = text.trim();
  out = out.replace(/^(?:\/\/\s*)?<!\[CDATA\[/, "").replace(/(?:\/\/\s*)?\]\]>$/, "");
  out = out.replace(/^<!--/, "").replace(/-->$/, "");
  // Trailing semicolons dropped by a loop: `/;+$/` retries from every `;` of a run, quadratic in the run's length.
  out = out.trim();
  let end = out.length;
  while (end > 0 && out[end - 1] === ";") end--;
  return out.slice(0, end).trim();
}

function tryLenient(text: string, budget: Budget): Json | undefined {
  if (text[0] !== "{" && text[0] !== "[") return undefined;
  const parsed = parseValueAt(text, 0, budget);
  if (!parsed) return undefined;
  // Several top-level values (e.g. two objects pasted in one block): keep them all.
  const values: Json[] = [parsed.value];
  let pos = parsed.end;
  while (pos < text.length) {
    const next = parseValueAt(text, skipSeparators(text, pos), budget);
    if (!next || next.end <= pos) break;
    values.push(next.value);
    pos = next.end;
  }
  return values.length === 1 ? values[0] : values;
}

function skipSeparators(text: string, pos: number): number {
  while (pos < text.length && /[\s,;]/.test(text[pos]!)) pos++;
  return pos;
}

class Parser {
  constructor(
    private readonly text: string,
    public pos: number,
    private readonly budget: Budget,
  ) {}

  value(depth: number): Json {
    if (depth > MAX_DEPTH) throw new LenientError("too deep");
    this.budget.tick();
    this.skip();
    const char = this.text[this.pos];
    if (char === undefined) throw new LenientError("unexpected end");
    if (char === "{") return this.object(depth);
    if (char === "[") return this.array(depth);
    if (char === '"' || char === "'" || char === "`") return this.string();
    if (char === "-" || char === "+" || char === "." || (char >= "0" && char <= "9")) return this.number();
    const word = /^[A-Za-z_$][\w$]*/.exec(this.text.slice(this.pos, this.pos + 64));
    if (word) {
      this.pos += word[0].length;
      if (word[0] === "true") return true;
      if (word[0] === "false") return false;
      if (word[0] === "new") {
        // new Date(…) and the like: skip the call, keep null.
        this.skip();
        this.identifierCall();
      }
      if (word[0] === "void") this.value(depth + 1);
      return null; // null, undefined, NaN, Infinity, free identifiers (Nuxt's minified arguments)
    }
    throw new LenientError(`unexpected ${char}`);
  }

  private identifierCall(): void {
    const word = /^[A-Za-z_$][\w$.]*/.exec(this.text.slice(this.pos, this.pos + 64));
    if (word) this.pos += word[0].length;
    this.skip();
    if (this.text[this.pos] === "(") {
      let depth = 0;
      for (; this.pos < this.text.length; this.pos++) {
        const c = this.text[this.pos];
        if (c === "(") depth++;
        else if (c === ")" && --depth === 0) {
          this.pos++;
          return;
        }
      }
    }
  }

  private object(depth: number): { [key: string]: Json } {
    const out: { [key: string]: Json } = {};
    this.pos++; // {
    while (true) {
      this.skip();
      const char = this.text[this.pos];
      if (char === undefined) throw new LenientError("unterminated object");
      if (char === "}") {
        this.pos++;
        return out;
      }
      if (char === ",") {
        this.pos++;
        continue;
      }
      const key = this.key();
      this.skip();
      if (this.text[this.pos] !== ":") throw new LenientError("expected :");
      this.pos++;
      const value = this.value(depth + 1);
      if (key !== "__proto__") out[key] = value;
      this.skip();
      // A missing comma between members is tolerated: the loop simply reads the next key.
    }
  }

  private key(): string {
    const char = this.text[this.pos];
    if (char === '"' || char === "'" || char === "`") return this.string(true);
    const word = /^[^\s:,{}[\]"']+/.exec(this.text.slice(this.pos, this.pos + 256));
    if (!word) throw new LenientError("expected key");
    this.pos += word[0].length;
    return word[0];
  }

  private array(depth: number): Json[] {
    const out: Json[] = [];
    this.pos++; // [
    while (true) {
      this.skip();
      const char = this.text[this.pos];
      if (char === undefined) throw new LenientError("unterminated array");
      if (char === "]") {
        this.pos++;
        return out;
      }
      if (char === ",") {
        this.pos++;
        continue;
      }
      out.push(this.value(depth + 1));
    }
  }

  private string(isKey = false): string {
    const quote = this.text[this.pos]!;
    this.pos++;
    let out = "";
    // Plain characters are copied a run at a time: a string appended to per character costs a rope node each.
    let run = this.pos;
    while (this.pos < this.text.length) {
      const char = this.text[this.pos]!;
      if (char === "\\") {
        out += this.text.slice(run, this.pos);
        const next = this.text[this.pos + 1];
        this.pos += 2;
        switch (next) {
          case "n":
            out += "\n";
            break;
          case "t":
            out += "\t";
            break;
          case "r":
            out += "\r";
            break;
          case "b":
            out += "\b";
            break;
          case "f":
            out += "\f";
            break;
          case "u": {
            const hex = /^[0-9a-fA-F]{4}/.exec(this.text.slice(this.pos, this.pos + 4));
            if (hex) {
              out += String.fromCharCode(parseInt(hex[0], 16));
              this.pos += 4;
            } else out += "u";
            break;
          }
          case "x": {
            const hex = /^[0-9a-fA-F]{2}/.exec(this.text.slice(this.pos, this.pos + 2));
            if (hex) {
              out += String.fromCharCode(parseInt(hex[0], 16));
              this.pos += 2;
            } else out += "x";
            break;
          }
          case "\n":
            break; // line continuation
          case undefined:
            break;
          default:
            out += next;
        }
        run = this.pos;
        continue;
      }
      if (char === quote) {
        // A quote that is not followed by what may follow a string is part of the text.
        const after = this.peekAfter(this.pos + 1);
        let closes = isKey ? after === ":" || after === undefined : after === undefined || ",}]:;)".includes(after);
        if (!isKey && after === quote) {
          // `"…"\n "next": …` is a missing comma (closes); `"12" TV""` is a stray quote (does not).
          const second = this.text.indexOf(quote, this.pos + 1);
          const beyond = this.peekAfter(second + 1);
          closes = beyond === undefined || !",}]".includes(beyond);
        }
        if (closes) {
          out += this.text.slice(run, this.pos);
          this.pos++;
          return out;
        }
      }
      this.pos++;
    }
    throw new LenientError("unterminated string");
  }

  private peekAfter(pos: number): string | undefined {
    while (pos < this.text.length && /\s/.test(this.text[pos]!)) pos++;
    if (this.text.startsWith("//", pos) || this.text.startsWith("/*", pos)) return ",";
    return this.text[pos];
  }

  private number(): number | null {
    const match = /^[+-]?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|Infinity)/.exec(this.text.slice(this.pos, this.pos + 64));
    if (!match) throw new LenientError("bad number");
    this.pos += match[0].length;
    const value = Number(match[0].replace(/^\+/, ""));
    return Number.isFinite(value) ? value : null;
  }

  private skip(): void {
    const text = this.text;
    while (this.pos < text.length) {
      const char = text[this.pos]!;
      if (char === " " || char === "\n" || char === "\r" || char === "\t" || char === "\u00a0" || char === "\ufeff") {
        this.pos++;
      } else if (char === "/" && text[this.pos + 1] === "/") {
        const end = text.indexOf("\n", this.pos);
        this.pos = end < 0 ? text.length : end + 1;
      } else if (char === "/" && text[this.pos + 1] === "*") {
        const end = text.indexOf("*/", this.pos + 2);
        this.pos = end < 0 ? text.length : end + 2;
      } else if (text.startsWith("<!--", this.pos)) {
        this.pos += 4;
      } else if (text.startsWith("-->", this.pos)) {
        this.pos += 3;
      } else return;
    }
  }
}
