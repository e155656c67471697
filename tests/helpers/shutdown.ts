/** Checks shared by the tests that send SIGTERM to a real server with requests in flight. */
import { get as httpGet } from "node:http";
import { expect } from "vitest";

export interface LogEntry {
  msg: string;
  reqId?: string;
  req?: { url: string };
  res?: { statusCode: number };
}

/** The server's JSON log lines. */
export function parseLog(output: string): LogEntry[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogEntry);
}

/** A request sent once the server is shutting down is refused, or, if it slips in, told 503. */
export async function expectLateRequestTurnedAway(url: string, key: string): Promise<void> {
  const late = await new Promise<number | string>((resolve) => {
    const request = httpGet(url, { agent: false, headers: { authorization: key } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
  });
  expect(["ECONNREFUSED", 503], `a request after SIGTERM got ${late}`).toContain(late);
}

/** Each answer is a whole page of `size` products, or the request was turned away: never a broken answer. */
export function expectWholeOrTurnedAway(answers: readonly { status: number; text: string }[], size: number): void {
  for (const answer of answers) {
    if (answer.status === 200) expect((JSON.parse(answer.text) as { products: unknown[] }).products).toHaveLength(size);
    else expect([0, 503], answer.text).toContain(answer.status);
  }
}
