import { z } from "zod";

/** Stable machine codes; clients branch on these, never on `title` or `detail`. */
export const ErrorCodeSchema = z.enum([
  "unauthorized",
  "invalid_parameter",
  "invalid_cursor",
  "not_found",
  "method_not_allowed",
  "rate_limited",
  "unavailable",
  "internal",
]);

/** RFC 9457 problem details, the body of every non-2xx REST answer. */
export const ProblemSchema = z
  .object({
    type: z.string().describe("URI naming the problem type."),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: ErrorCodeSchema,
    request_id: z.string(),
    errors: z
      .array(z.object({ param: z.string(), message: z.string() }))
      .optional()
      .describe("For `invalid_parameter`: each bad parameter and what is wrong with it."),
  })
  .meta({ id: "Problem" });

export type ErrorCode = z.infer<typeof ErrorCodeSchema>;
export type Problem = z.infer<typeof ProblemSchema>;
