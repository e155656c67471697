/**
 * Issue 47, item 6: the typed client (shared/client.ts) pulled the server's sources into a consumer's type-check, and
 * with them the server's dependencies and Node's newest types. The router's type is published as a declaration
 * (shared/router.d.ts, written from the operation table): it is current, it types every call and error as the server's
 * router does, and a consumer compiles against declarations only, with skipLibCheck off.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import type { inferRouterError, inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { afterAll, describe, expect, expectTypeOf, it } from "vitest";
import { ROUTER_DECLARATION_PATH, routerDeclaration } from "../../server/api/router-declaration.js";
import type { AppRouter as Served } from "../../server/api/router.js";
import type { AppRouter as Declared } from "../../shared/router.js";

const run = promisify(execFile);
const ROOT = process.cwd();
/** Under node_modules, so the declarations resolve @trpc/client and zod as a consumer's would; removed afterwards. */
const WORK = join(ROOT, "node_modules", ".cache", `router-declaration-${process.pid}`);
afterAll(() => rmSync(WORK, { recursive: true, force: true }));

const COMPILER = { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2023"], types: ["node"], strict: true };

async function tsc(project: string): Promise<string> {
  const result = await run(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", project], { cwd: ROOT }).catch(
    (failure: { stdout?: string; stderr?: string }) => ({ stdout: `${failure.stdout ?? ""}${failure.stderr ?? ""}` || "tsc failed" }),
  );
  return result.stdout;
}

describe("issue 47, item 6: the router's type as a declaration", () => {
  it("is current: shared/router.d.ts is what the operation table writes", () => {
    expect(readFileSync(ROUTER_DECLARATION_PATH, "utf8"), "run `npx tsx server/api/router-declaration.ts`").toBe(routerDeclaration());
  });

  it("types every call's input and output, and the errors, as the server's router does", () => {
    // Checked by the compiler (npm test's tsc), which fails on any difference.
    expectTypeOf<inferRouterInputs<Declared>>().toEqualTypeOf<inferRouterInputs<Served>>();
    expectTypeOf<inferRouterOutputs<Declared>>().toEqualTypeOf<inferRouterOutputs<Served>>();
    expectTypeOf<inferRouterError<Declared>>().toEqualTypeOf<inferRouterError<Served>>();
  });

  it("lets a consumer compile with skipLibCheck false against declarations of shared/ only", async () => {
    mkdirSync(join(WORK, "consumer"), { recursive: true });
    // shared/'s declarations, as a package would ship them; rootDir refuses any source outside shared/ (the server's).
    const emit = join(WORK, "tsconfig.emit.json");
    writeFileSync(
      emit,
      JSON.stringify({
        // noEmitOnError: a source outside rootDir would otherwise be written beside itself, into the repository.
        compilerOptions: {
          ...COMPILER,
          skipLibCheck: true,
          declaration: true,
          emitDeclarationOnly: true,
          noEmitOnError: true,
          outDir: join(WORK, "decl"),
          rootDir: join(ROOT, "shared"),
        },
        files: [join(ROOT, "shared", "index.ts")],
      }),
    );
    expect(await tsc(emit)).toBe("");
    copyFileSync(ROUTER_DECLARATION_PATH, join(WORK, "decl", "router.d.ts"));
    expect(readdirSync(join(WORK, "decl"))).toContain("client.d.ts");

    writeFileSync(
      join(WORK, "consumer", "main.ts"),
      `import { createCatalogClient, isWholeRecord } from "../decl/index.js";

const catalog = createCatalogClient({ baseUrl: "http://127.0.0.1:3000", apiKey: "pcl_test_key" });
const { products } = await catalog.products.search.query({ q: "tent", limit: 5, facets: ["brand"] });
const first = products[0]?.pdp;
if (first && isWholeRecord(first)) console.log(first.desc.length);
const { results } = await catalog.products.lookup.mutate({ inputs: [{ sku: "NP-10037" }] });
const reason: "not_found" | "ambiguous" | "gone" | undefined = results[0]?.reason;
console.log(reason);
// @ts-expect-error: a parameter the contract does not have
await catalog.products.byId.query({ id: "pdp_x", colour: "red" });
`,
    );
    const consumer = join(WORK, "consumer", "tsconfig.json");
    // DOM: @trpc/client's own declarations name fetch's RequestInfo.
    const compilerOptions = { ...COMPILER, lib: ["ES2023", "DOM"], skipLibCheck: false, noEmit: true };
    writeFileSync(consumer, JSON.stringify({ compilerOptions, files: ["main.ts"] }));
    expect(await tsc(consumer)).toBe("");
    const files = (await run(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", consumer, "--listFilesOnly"], { cwd: ROOT })).stdout.split("\n");
    // Nothing of the repository's sources (the server's, shared/'s): only packages' declarations and the consumer's own.
    expect(files.filter((file) => !file.includes("/node_modules/") && file.trim() !== "")).toEqual([]);
    expect(files.filter((file) => file.startsWith(WORK) && !file.endsWith(".d.ts")).map((file) => file.slice(WORK.length))).toEqual([
      "/consumer/main.ts",
    ]);
  }, 120_000);
});
