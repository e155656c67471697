/** Entry point of `npm run -s catalog -- <command>`; the commands are in run.ts. */
import { ConfigError } from "../config.js";
import { describeDatabaseError } from "../db/errors.js";
import { DataDirBusyError } from "../db/open.js";
import { RulesError } from "../search/rules/files.js";
import { run, UsageError, USAGE, type Out } from "./run.js";

const out: Out = { log: (line) => process.stdout.write(`${line}\n`), err: (line) => process.stderr.write(`${line}\n`), stdout: process.stdout };
run(process.argv.slice(2), process.env, out).then(
  // Exit once stdout has drained: a pipe takes 64 KiB at a time, and exiting earlier cut `extract` lines short.
  (code) => process.stdout.write("", () => process.exit(code)),
  (error: unknown) => {
    if (error instanceof UsageError) {
      out.err(`${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (error instanceof ConfigError || error instanceof DataDirBusyError || error instanceof RulesError) out.err(error.message);
    // A failed query's message lists its parameters (whole records): print the database's reason instead.
    else if (error instanceof Error && error.message.startsWith("Failed query:")) out.err(`catalog: ${describeDatabaseError(error)}`);
    else out.err(`catalog: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
