/**
 * A JSON data file shipped with the service (fitted weights, wording, locales), read against its Zod schema: a broken
 * file is refused with its name and the first thing wrong, whether it is not JSON or not of the schema.
 */
import type { z } from "zod";

export function parseJsonFile<S extends z.ZodType>(schema: S, text: string, source: string): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source}: not JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${source}: ${issue.path.join(".") || "(top)"}: ${issue.message}`);
  }
  return parsed.data;
}
