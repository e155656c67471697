/**
 * Reading the search's data files: the rules (README.md beside this file: the built-in folder shipped with the
 * service, one folder per language, and an operator's folder, RULES_DIR, of the same shape), the languages' stop words
 * and lexicons (languages/data.ts), synonyms files and exchange rates. Every mistake is reported with the file, the
 * line and what is wrong, so that a start with a broken file stops at once and says where.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { z } from "zod";

/** The rules format this code reads; a file states it (`"version": 1`, or a `# version: 1` line). */
export const RULES_VERSION = 1;

/** The language of the built-in rules the search reads. */
export const RULES_LANGUAGE = "en";

/** The built-in rules: server/search/rules/<language>/. */
export const BUILTIN_RULES_DIR = fileURLToPath(new URL(".", import.meta.url));

/** A data file refused: its name, line and what is wrong. */
export class RulesError extends Error {
  override readonly name = "RulesError";
}

/** One data file's text, and where it was read from (as errors name it). */
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

/** A data file's text, `source` naming it in errors; one that cannot be read is refused with why. */
export function readText(path: string | URL, source: string): RulesText {
  try {
    return { text: readFileSync(path, "utf8"), source };
  } catch (error) {
    throw new RulesError(`${source}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

/** The rules file `name` for `language` in `dir`, or undefined when there is none. */
export function readRulesText(dir: string, language: string, name: string, label: string): RulesText | undefined {
  const path = join(dir, language, name);
  return existsSync(path) ? readText(path, `${label} ${join(language, name)}`) : undefined;
}

/** A line of a line file (synonyms, stop words, lexicons): its number from 1 and its text, trimmed. */
export interface Line {
  line: number;
  text: string;
}

/** The lines of a line file that hold something: blank lines and `#` comment lines left out. */
export function contentLines(text: string): Line[] {
  return text.split(/\r?\n/).flatMap((raw, index) => {
    const line = raw.trim();
    return line === "" || line.startsWith("#") ? [] : [{ line: index + 1, text: line }];
  });
}

/** A line file's line refused: "synonyms.txt line 3: what is wrong (in "the line")". */
export function lineError(source: string, { line, text }: Line, problem: string): RulesError {
  return new RulesError(`${source} line ${line}: ${problem} (in "${text}")`);
}

/**
 * The directives of a line file (synonyms.txt): `# version: 1` and `# replace: true` among the comment lines before
 * its first rule. A version is required; any other is refused, so a file written for another format is not misread.
 */
export function lineFileHeader(file: RulesText): { replace: boolean } {
  let version: number | undefined;
  let replace = false;
  for (const [index, raw] of file.text.split(/\r?\n/).entries()) {
    const line = { line: index + 1, text: raw.trim() };
    if (line.text === "") continue;
    if (!line.text.startsWith("#")) break;
    const directive = /^#\s*(version|replace)\s*:\s*(\S*)\s*$/u.exec(line.text);
    if (!directive) continue;
    if (directive[1] === "version") {
      if (directive[2] !== String(RULES_VERSION))
        throw lineError(file.source, line, `version ${directive[2] || "(none)"} is not one this server reads (${RULES_VERSION})`);
      version = RULES_VERSION;
    } else if (directive[2] === "true" || directive[2] === "false") replace = directive[2] === "true";
    else throw lineError(file.source, line, 'replace must be "true" or "false"');
  }
  if (version === undefined) throw new RulesError(`${file.source} line 1: no "# version: ${RULES_VERSION}" line before the first rule`);
  return { replace };
}

/** A JSON file's value checked by `schema`; every problem refused at once, each with its line. */
export function parseJsonAs<T extends z.ZodType>(file: RulesText, schema: T): z.infer<T> {
  const parsed = schema.safeParse(parseJsonFile(file));
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const at = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
    // An unknown field's line is its own, not its object's.
    const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]!] : issue.path;
    return `${file.source} line ${lineOf(file.text, path)}: ${at}${issue.message}`;
  });
  throw new RulesError(problems.join("\n"));
}

/** A JSON file's value, or the line and reason it cannot be read. */
export function parseJsonFile(file: RulesText): unknown {
  try {
    return JSON.parse(file.text);
  } catch (error) {
    const line = lineAt(file.text, readJson(file.text).stop ?? file.text.length);
    const reason = (error as Error).message.replace(/,? ?(?:in JSON at position \d+.*|".*" is not valid JSON)$/su, "");
    throw new RulesError(`${file.source} line ${line}: not JSON (${reason})`);
  }
}

/** The line (1-based) of a JSON text where the value at `path` begins, or the nearest value holding it. */
export function lineOf(text: string, path: readonly PropertyKey[]): number {
  const { starts } = readJson(text);
  for (let n = path.length; n >= 0; n--) {
    const at = starts.get(path.slice(0, n).join("\u0000"));
    if (at !== undefined) return lineAt(text, at);
  }
  return 1;
}

const lineAt = (text: string, offset: number) => text.slice(0, offset).split("\n").length;

/**
 * Where each value of a JSON text begins, by its path, and where the text stops being JSON (undefined: it is JSON).
 * Node 20's JSON.parse does not always say where (`Unexpected token ']', ..."` with no position), and an operator
 * needs the line: a small reader of JSON's grammar, stopping at the first mistake.
 */
function readJson(text: string): { starts: Map<string, number>; stop: number | undefined } {
  const starts = new Map<string, number>();
  let i = 0;
  const space = () => {
    while (/[ \t\r\n]/u.test(text[i] ?? "")) i++;
  };
  const expect = (c: string) => {
    if (text[i] !== c) throw i;
    i++;
  };
  const string = (): string => {
    const start = i;
    expect('"');
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    expect('"');
    return text.slice(start + 1, i - 1);
  };
  const container = (close: string, member: (n: number) => void) => {
    i++;
    space();
    if (text[i] === close) {
      i++;
      return;
    }
    for (let n = 0; ; n++) {
      member(n);
      space();
      if (text[i] !== ",") return expect(close);
      i++;
      space();
      if (text[i] === close) throw i;
    }
  };
  const value = (path: string): void => {
    space();
    starts.set(path, i);
    const at = (key: string | number) => (path === "" ? String(key) : `${path}\u0000${key}`);
    if (text[i] === "{") {
      container("}", () => {
        space();
        const key = string();
        space();
        expect(":");
        value(at(key));
      });
    } else if (text[i] === "[") container("]", (n) => value(at(n)));
    else if (text[i] === '"') string();
    else {
      const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/u.exec(text.slice(i, i + 400));
      if (!literal) throw i;
      i += literal[0].length;
    }
  };
  try {
    value("");
    space();
    if (i < text.length) throw i;
  } catch (at) {
    if (typeof at === "number") return { starts, stop: at };
    throw at;
  }
  return { starts, stop: undefined };
}
