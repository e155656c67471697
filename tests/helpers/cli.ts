import { run } from "../../server/cli/run.js";

/** Runs the `catalog` command in process with `env` as its environment, collecting what it prints and its exit code. */
export async function runCli(argv: readonly string[], env: Record<string, string>): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, env, { log: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out, err };
}
