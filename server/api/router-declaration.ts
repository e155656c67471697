/**
 * shared/router.d.ts: the router's type as a TypeScript consumer compiles it. Written from the operation table, it
 * names only tRPC's and Zod's types and the shared schemas, so a program using shared/client.ts compiles declarations
 * of the contract, never the server's sources and what they import (the database, Fastify, Node's newest types).
 *
 *   npx tsx server/api/router-declaration.ts     writes it
 *
 * tests/integration/router-declaration.test.ts checks that the file is current, that it types every call and error
 * as the server's router does, and that a consumer compiles against declarations only.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as schemas from "../../shared/schemas/index.js";
import { operations } from "./operations/index.js";

export const ROUTER_DECLARATION_PATH = fileURLToPath(new URL("../../shared/router.d.ts", import.meta.url));

/** The name shared/schemas exports a schema under: the declaration can only name what a consumer can import. */
function exportName(schema: unknown, what: string): string {
  const found = Object.entries(schemas).find(([, value]) => value === schema);
  if (!found) throw new Error(`${what} is not a named export of shared/schemas; the router's declaration cannot name it`);
  return found[0];
}

const HEADER = `/**
 * The router's type for TypeScript consumers (shared/client.ts), written from the operation table by
 * server/api/router-declaration.ts: do not edit; run \`npx tsx server/api/router-declaration.ts\`.
 */
import type {
  TRPC_ERROR_CODE_NUMBER,
  TRPCBuiltRouter,
  TRPCDecorateCreateRouterOptions,
  TRPCMutationProcedure,
  TRPCQueryProcedure,
} from "@trpc/server";
import type { z } from "zod";`;

/** What a failed call's error carries, as server/api/trpc.ts formats it: the problem's code, status, parameter errors, request id. */
const ERROR_SHAPE = `export type ErrorShape = {
  message: string;
  code: TRPC_ERROR_CODE_NUMBER;
  data: {
    stack: undefined;
    code: ErrorCode;
    httpStatus: number;
    errors: Problem["errors"];
    request_id: string;
    gone_at: string | undefined;
    path?: string;
  };
};`;

export function routerDeclaration(): string {
  const names = new Set(["ErrorCode", "Problem"]);
  const namespaces = Object.entries(operations).map(([namespace, entries]) => {
    const procedures = Object.entries(entries).map(([name, operation]) => {
      const input = exportName(operation.input, `${namespace}.${name}'s input`);
      const output = exportName(operation.output, `${namespace}.${name}'s output`);
      names.add(input).add(output);
      const kind = operation.kind === "query" ? "TRPCQueryProcedure" : "TRPCMutationProcedure";
      // Written as the formatter (biome) writes it, so that the file checked in is byte for byte what this returns.
      return `      ${name}: ${kind}<{\n        input: z.input<typeof ${input}>;\n        output: z.output<typeof ${output}>;\n        meta: object;\n      }>;`;
    });
    return `    ${namespace}: {\n${procedures.join("\n")}\n    };`;
  });
  const imports = [...names]
    .sort()
    .map((name) => `  ${name},\n`)
    .join("");
  return `${HEADER}
import type {
${imports}} from "./schemas/index.js";

${ERROR_SHAPE}

export type AppRouter = TRPCBuiltRouter<
  { ctx: object; meta: object; errorShape: ErrorShape; transformer: false },
  TRPCDecorateCreateRouterOptions<{
${namespaces.join("\n")}
  }>
>;
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(ROUTER_DECLARATION_PATH, routerDeclaration());
  process.stdout.write(`wrote ${ROUTER_DECLARATION_PATH}\n`);
}
