/**
 * The change feed: what changed in the catalog, in commit order, from a
 * position a client keeps. Followed from the start, it rebuilds the catalog's
 * current set of products exactly.
 */
import { z } from "zod";
import { ProductIdSchema, TimestampSchema } from "./product.js";

export const CHANGES_LIMIT_MAX = 1000;
export const CHANGES_LIMIT_DEFAULT = 100;
const LIMIT_ERROR = `must be an integer from 1 to ${CHANGES_LIMIT_MAX}`;

/** A position in the feed: opaque to clients (today the number of the last change read). */
export const ChangeCursorSchema = z
  .string({ error: (issue) => (Array.isArray(issue.input) ? "must be given once" : "must be a string") })
  .max(15, "must be a next_cursor this feed answered")
  .regex(/^\d{1,15}$/, "must be a next_cursor this feed answered");

export const ChangesParamsSchema = z.object({
  since: ChangeCursorSchema.optional().describe(
    "`next_cursor` of the previous page: the changes committed after it. Leave it out to read the feed from its start (the whole catalog).",
  ),
  limit: z
    .preprocess(
      (value) => (typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : value),
      z
        .number({ error: (issue) => (Array.isArray(issue.input) ? "must be given once" : LIMIT_ERROR) })
        .int(LIMIT_ERROR)
        .min(1, LIMIT_ERROR)
        .max(CHANGES_LIMIT_MAX, LIMIT_ERROR),
    )
    .optional()
    .default(CHANGES_LIMIT_DEFAULT)
    .describe(`How many changes to return, 1–${CHANGES_LIMIT_MAX}.`)
    .meta({ override: { type: "integer", format: "int32", minimum: 1, maximum: CHANGES_LIMIT_MAX, default: CHANGES_LIMIT_DEFAULT } }),
});

export const ProductChangeSchema = z
  .union([
    z.object({
      id: ProductIdSchema,
      change: z.literal("upserted").describe("The product is in the catalog: new, changed, or back after being gone."),
      updated_at: TimestampSchema.describe("When its record last changed."),
    }),
    z.object({
      id: ProductIdSchema,
      change: z.literal("gone").describe("The product left the catalog: its page answered 404 or 410."),
      gone_at: TimestampSchema.describe("When its page was found withdrawn."),
    }),
  ])
  .meta({ id: "ProductChange" });

export const ChangesResponseSchema = z
  .object({
    changes: z
      .array(ProductChangeSchema)
      .describe(
        "In commit order. Each product appears once, at its latest change: apply `upserted` as add-or-replace and `gone` as remove, and the set you hold is the catalog's.",
      ),
    next_cursor: ChangeCursorSchema.describe(
      "Pass as `since` for what comes next; when `changes` was empty it is the `since` given (poll again later).",
    ),
  })
  .meta({ id: "ChangesResponse" });

export type ChangesParams = z.infer<typeof ChangesParamsSchema>;
export type ProductChange = z.infer<typeof ProductChangeSchema>;
export type ChangesResponse = z.infer<typeof ChangesResponseSchema>;
