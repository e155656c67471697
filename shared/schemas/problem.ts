import { z } from "zod";

/** Stable machine codes; clients branch on these, never on `title` or `detail`. */
export const ErrorCodeSchema = z.enum([
  "unauthorized",
  "invalid_parameter",
  "invalid_cursor",
  "malformed_request",
  "not_found",
  "gone",
  "method_not_allowed",
  "request_timeout",
  "payload_too_large",
  "unsupported_media_type",
  "uri_too_long",
  "headers_too_large",
  "answer_too_large",
  "rate_limited",
  "overloaded",
  "unavailable",
  "upstream_error",
  "upstream_timeout",
  "internal",
]);

/** RFC 9457 problem details, the body of every non-2xx REST answer. */
export const ProblemSchema = z
  .object({
    type: z.string().describe("URI naming the problem type."),
    title: z.string(),
    status: z.int().min(100).max(599).meta({ format: "int32" }),
    detail: z.string(),
    code: ErrorCodeSchema,
    request_id: z.string(),
    errors: z
      .array(z.object({ param: z.string(), message: z.string() }))
      .optional()
      .describe("For `invalid_parameter`: each bad parameter and what is wrong with it."),
    gone_at: z.string().optional().describe("For `gone`: when the product's page was found withdrawn (it answered 404 or 410), ISO 8601."),
  })
  .meta({ id: "Problem" });

export type ErrorCode = z.infer<typeof ErrorCodeSchema>;
export type Problem = z.infer<typeof ProblemSchema>;
