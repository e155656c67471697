/**
 * Lines of code in a folder's TypeScript (issue 48's simplicity goal): a line counts when it holds a token that is
 * not a comment, as TypeScript's own scanner reads it, so comments, blank lines and data files are left out. With
 * `--base REV` the same count at that commit, from git, beside it.
 *   npm run bench:code-size -- [folder] [--base REV]   (folder: server/search by default)
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import ts from "typescript";

function codeLines(text: string): number {
  // Every token the parser reads, from its first character (trivia, comments included, skipped) to its end: a string
  // or template spanning lines counts each line it covers.
  const source = ts.createSourceFile("file.ts", text, ts.ScriptTarget.Latest, true);
  const lines = new Set<number>();
  const visit = (node: ts.Node): void => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    const children = node.getChildren(source);
    for (const child of children) visit(child);
    if (children.length > 0 || node.kind === ts.SyntaxKind.EndOfFileToken) return;
    const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
    const last = source.getLineAndCharacterOfPosition(node.end).line;
    for (let line = first; line <= last; line++) lines.add(line);
  };
  visit(source);
  return lines.size;
}

function filesNow(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return filesNow(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

function countNow(folder: string): { files: number; code: number; all: number } {
  const texts = filesNow(folder).map((path) => readFileSync(path, "utf8"));
  return summary(texts);
}

function countAt(rev: string, folder: string): { files: number; code: number; all: number } {
  const git = (...args: string[]) => execFileSync("git", args, { encoding: "utf8", maxBuffer: 1 << 28 });
  const paths = git("ls-tree", "-r", "--name-only", rev, folder)
    .split("\n")
    .filter((path) => path.endsWith(".ts"));
  return summary(paths.map((path) => git("show", `${rev}:${path}`)));
}

function summary(texts: string[]): { files: number; code: number; all: number } {
  const code = texts.reduce((sum, text) => sum + codeLines(text), 0);
  const all = texts.reduce((sum, text) => sum + text.split("\n").length - (text.endsWith("\n") ? 1 : 0), 0);
  return { files: texts.length, code, all };
}

const { values, positionals } = parseArgs({ options: { base: { type: "string" } }, allowPositionals: true });
const folder = positionals[0] ?? "server/search";
const rows = [{ at: "working tree", ...countNow(folder) }];
if (values.base) rows.push({ at: values.base, ...countAt(values.base, folder) });
console.log(`${folder}: TypeScript lines of code (comments and blank lines aside)`);
for (const row of rows) console.log(`  ${row.at.padEnd(14)} ${row.code} code lines, ${row.all} in all, ${row.files} files`);
