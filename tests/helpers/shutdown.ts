/** Checks shared by the tests that send SIGTERM to a real server with requests in flight. */
import { get as httpGet } from "node:http";
import { expect } from "vitest";

export interface LogEntry {
  msg: string;
  reqId?: string;
  req?: { url: string };
  res?: { statusCode: number };
}

/** The server's JSON log lines, whole ones only: the last may still be arriving. */
export function parseLog(output: string): LogEntry[] {
  return output
    .slice(0, output.lastIndexOf("\n") + 1)
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogEntry);
}

/**
 * Whether a line says the server began a request whose URL holds `part`. Tests match on their own URLs because a line
 * about an earlier test's request can still arrive after a test's marker (seen twice in clean-clone CI).
 */
export const begins =
  (part: string) =>
  (entry: LogEntry): boolean =>
    entry.msg === "incoming request" && entry.req?.url.includes(part) === true;

/**
 * A request sent once the server is shutting down is refused, or, if it slips in, told 503. A connection accepted in
 * the instant before the listener closed, whose request had not been read yet, is idle to Node and closed with the
 * others (ECONNRESET): it too was turned away before anything was served (seen once in a clean-clone CI run).
 */
export async function expectLateRequestTurnedAway(url: string, key: string): Promise<void> {
  const late = await new Promise<number | string>((resolve) => {
    const request = httpGet(url, { agent: false, headers: { authorization: key } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
  });
  expect(["ECONNREFUSED", "ECONNRESET", 503], `a request after SIGTERM got ${late}`).toContain(late);
}

/** A whole answer: it parses, and holds between one and `limit` records (the tests' queries all match something). */
export function expectWholePage(answer: { status: number; text: string }, limit: number): void {
  expect(answer.status, answer.text).toBe(200);
  const { products } = JSON.parse(answer.text) as { products: { pdp: { id: string } }[] };
  expect(products.length).toBeGreaterThan(0);
  expect(products.length).toBeLessThanOrEqual(limit);
  for (const { pdp } of products) expect(pdp.id).toEqual(expect.any(String));
}

/** Each answer is whole, or the request was turned away: never a broken answer. */
export function expectWholeOrTurnedAway(answers: readonly { status: number; text: string }[], limit: number): void {
  for (const answer of answers) {
    if (answer.status === 200) expectWholePage(answer, limit);
    else expect([0, 503], answer.text).toContain(answer.status);
  }
}
