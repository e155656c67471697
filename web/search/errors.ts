/**
 * A failed call, in words for the person at the page: what happened and what they can do, never the error's JSON.
 * The API's own `code` (`data.code` on tRPC) decides; its message is kept where it names something the person can fix.
 */
import { isTRPCClientError, type TRPCClientError } from "@trpc/client";
import type { AppRouter } from "../../shared/client.js";

export interface Trouble {
  /** What the page says. */
  text: string;
  /** The key is the problem: the page asks for another. */
  askKey: boolean;
}

function seconds(retryAfter: number | null): string {
  if (retryAfter === null) return "in a moment";
  return retryAfter === 1 ? "in 1 second" : `in ${retryAfter} seconds`;
}

/** `retryAfter`: the failed answer's `Retry-After`, in seconds, when it had one. */
export function describeTrouble(error: unknown, retryAfter: number | null): Trouble {
  if (!isTRPCClientError(error)) return { text: "Something went wrong in this page. Reload it and try again.", askKey: false };
  const data = (error as TRPCClientError<AppRouter>).data;
  if (!data) return { text: "The catalog service cannot be reached. Check the connection and try again.", askKey: false };
  switch (data.code) {
    case "unauthorized":
      return { text: `This API key was not accepted: ${error.message} Enter a valid key.`, askKey: true };
    case "rate_limited":
      return { text: `This key has made too many requests for now. Try again ${seconds(retryAfter)}.`, askKey: false };
    case "overloaded":
      return { text: `The catalog is busy with other searches. Try again ${seconds(retryAfter)}.`, askKey: false };
    case "unavailable":
      return { text: "The catalog's database does not answer right now. Try again shortly.", askKey: false };
    case "invalid_cursor":
      return { text: "These results have changed since the first page. Search again to start over.", askKey: false };
    case "not_found":
      return { text: "There is no such product in the catalog.", askKey: false };
    case "gone":
      return {
        text: `The merchant has withdrawn this product's page${data.gone_at ? ` (found on ${data.gone_at.slice(0, 10)})` : ""}.`,
        askKey: false,
      };
    case "invalid_parameter":
      return {
        text: `The search could not be run: ${(data.errors ?? []).map((e) => `${e.param} ${e.message}`).join("; ") || error.message}`,
        askKey: false,
      };
    default:
      return {
        text: `The catalog could not answer (${data.code}). Try again; if it keeps failing, quote request ${data.request_id}.`,
        askKey: false,
      };
  }
}
