/**
 * Reading rules files (README.md beside this file): the built-in folder shipped with the service, one folder per
 * language, and an operator's folder (RULES_DIR) of the same shape. Every mistake is reported with the file, the line
 * and what is wrong, so that a start with a broken file stops at once and says where.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The rules format this code reads; a file states it (`"version": 1`, or a `# version: 1` line). */
export const RULES_VERSION = 1;

/** The language of the built-in rules the search reads. */
export const RULES_LANGUAGE = "en";

/** The built-in rules: server/search/rules/<language>/. */
export const BUILTIN_RULES_DIR = fileURLToPath(new URL(".", import.meta.url));

export class RulesError extends Error {
  override readonly name = "RulesError";
}

/** One rules file's text, and where it was read from (as errors name it). */
export interface RulesText {
  text: string;
  source: string;
}

/** The languages a rules folder holds rules for: its sub-folders ("en"). */
export function languagesIn(dir: string): string[] {
  return readdirSync(dir).filter((name) => statSync(join(dir, name)).isDirectory());
}

/** A word or phrase from the rules, matched as written inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");
}

/** The plain files in a folder (not its sub-folders). */
export function filesIn(dir: string): string[] {
  return readdirSync(dir).filter((name) => !statSync(join(dir, name)).isDirectory());
}

/** The rules file `name` for `language` in `dir`, or undefined when there is none. */
export function readRulesText(dir: string, language: string, name: string, label: string): RulesText | undefined {
  const path = join(dir, language, name);
  if (!existsSync(path)) return undefined;
  try {
    return { text: readFileSync(path, "utf8"), source: `${label} ${join(language, name)}` };
  } catch (error) {
    throw new RulesError(`${label} ${join(language, name)}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

/**
 * The directives of a line file (synonyms.txt): `# version: 1` and `# replace: true` among the comment lines before
 * its first rule. A version is required; any other is refused, so a file written for another format is not misread.
 */
export function lineFileHeader(file: RulesText): { replace: boolean } {
  const lines = file.text.split(/\r?\n/);
  let version: number | undefined;
  let replace = false;
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "") continue;
    if (!line.startsWith("#")) break;
    const directive = /^#\s*(version|replace)\s*:\s*(\S*)\s*$/u.exec(line);
    if (!directive) continue;
    const fail = (problem: string): never => {
      throw new RulesError(`${file.source} line ${index + 1}: ${problem} (in "${line}")`);
    };
    if (directive[1] === "version") {
      if (directive[2] !== String(RULES_VERSION)) fail(`version ${directive[2] || "(none)"} is not one this server reads (${RULES_VERSION})`);
      version = RULES_VERSION;
    } else if (directive[2] === "true" || directive[2] === "false") replace = directive[2] === "true";
    else fail('replace must be "true" or "false"');
  }
  if (version === undefined) throw new RulesError(`${file.source} line 1: no "# version: ${RULES_VERSION}" line before the first rule`);
  return { replace };
}

/** The line (1-based) of a JSON text where the value at `path` begins, or the last line reached on the way. */
export function lineOf(text: string, path: readonly PropertyKey[]): number {
  let i = 0;
  const space = () => {
    while (i < text.length && /\s/u.test(text[i]!)) i++;
  };
  const skipString = () => {
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
  };
  const skipValue = () => {
    space();
    const c = text[i];
    if (c === '"') return skipString();
    if (c !== "{" && c !== "[") {
      while (i < text.length && !/[,\]}\s]/u.test(text[i]!)) i++;
      return;
    }
    let depth = 0;
    while (i < text.length) {
      const d = text[i]!;
      if (d === '"') {
        skipString();
        continue;
      }
      i++;
      if (d === "{" || d === "[") depth++;
      else if ((d === "}" || d === "]") && --depth === 0) return;
    }
  };
  for (const key of path) {
    space();
    if (text[i] === "{") {
      i++;
      for (;;) {
        space();
        if (text[i] !== '"') break;
        const start = i;
        skipString();
        const name = JSON.parse(text.slice(start, i)) as string;
        space();
        i++;
        space();
        if (name === String(key)) break;
        skipValue();
        space();
        if (text[i] === ",") i++;
      }
    } else if (text[i] === "[") {
      i++;
      for (let n = 0; n < Number(key); n++) {
        skipValue();
        space();
        if (text[i] === ",") i++;
      }
      space();
    } else break;
  }
  return text.slice(0, i).split("\n").length;
}

/** A JSON file's value, or the line and reason it cannot be read. */
export function parseJsonFile(file: RulesText): unknown {
  try {
    return JSON.parse(file.text);
  } catch (error) {
    const line = file.text.slice(0, syntaxErrorAt(file.text)).split("\n").length;
    const reason = (error as Error).message.replace(/,? ?(?:in JSON at position \d+.*|".*" is not valid JSON)$/su, "");
    throw new RulesError(`${file.source} line ${line}: not JSON (${reason})`);
  }
}

/**
 * Where a JSON text stops being JSON: Node 20's JSON.parse does not always say (`Unexpected token ']', ..."` with no
 * position), and an operator needs the line. A small reader of JSON's grammar that stops at the first mistake.
 */
function syntaxErrorAt(text: string): number {
  let i = 0;
  const space = () => {
    while (/[ \t\r\n]/u.test(text[i] ?? "")) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const expect = (c: string) => {
    if (text[i] !== c) fail();
    i++;
  };
  const member = () => {
    string();
    space();
    expect(":");
    value();
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === "{") container("}", member);
    else if (c === "[") container("]", value);
    else if (c === '"') string();
    else literal();
  };
  const literal = () => {
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/u.exec(text.slice(i));
    if (!literal) fail();
    i += literal![0].length;
  };
  const string = () => {
    space();
    expect('"');
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    expect('"');
  };
  const container = (close: string, member: () => void) => {
    i++;
    space();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      member();
      space();
      if (text[i] !== ",") {
        expect(close);
        return;
      }
      i++;
      space();
      if (text[i] === close) fail();
    }
  };
  try {
    value();
    space();
    if (i < text.length) fail();
  } catch (at) {
    if (typeof at === "number") return at;
    throw at;
  }
  return i;
}
