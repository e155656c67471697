import { z } from "zod";

export const HealthSchema = z
  .object({
    status: z.enum(["ok", "unavailable"]),
    database: z.object({
      kind: z.enum(["pglite", "postgres"]),
      ok: z.boolean(),
      latency_ms: z.number().nullable(),
    }),
    products: z.int().min(0).meta({ format: "int64" }).nullable().describe("Products in the catalog; null when the database does not answer."),
    version: z.string(),
    uptime_s: z.number(),
    process: z
      .object({
        pid: z.int32().min(1).meta({ format: "int32" }),
        worker: z
          .int32()
          .min(1)
          .meta({ format: "int32" })
          .nullable()
          .describe("Its cluster worker's id under WEB_CONCURRENCY (docs/operations.md, Scaling); null when one process serves."),
      })
      .describe("The server process that answered (uptime_s is its own)."),
  })
  .meta({ id: "Health" });

export type Health = z.infer<typeof HealthSchema>;
