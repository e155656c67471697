/**
 * Live lookup (`GET /products?url=…&fetch=true`, LIVE_LOOKUP_HOSTS): a product page the catalog does not hold is
 * fetched while the client waits, through the crawler's fetcher (robots.txt, politeness, address and size checks,
 * redirects, retries) and the crawler's extraction and import (crawl.ts `pageLine`, ingest/import.ts), then answered
 * from the catalog as any lookup is. Only the operator's merchant hosts are fetched; the whole lookup has
 * LIVE_LOOKUP_TIMEOUT_MS; lookups of one page at the same time share one fetch.
 *
 * How each outcome is answered (RequestError codes; api/problems.ts gives the statuses):
 *   held by the catalog           the stored product (410 `gone` if withdrawn), no request made
 *   live lookup off, other host or port
 *                                 400 `invalid_parameter`
 *   deadline passed               504 `upstream_timeout`
 *   404 or 410, another 4xx, not HTML, too large, robots.txt disallows, an address refused, no product on the page,
 *   a redirect off LIVE_LOOKUP_HOSTS (refused before it is requested; the detail never says what a host answered
 *   that the client could not ask directly)
 *                                 404 `not_found`, saying why
 *   5xx or 429 after the retries, a reset, a redirect loop
 *                                 502 `upstream_error`, saying why
 */
import type { Product } from "../../shared/schemas/index.js";
import { brandHost, productUrlKey } from "../../shared/url.js";
import type { CatalogService } from "../catalog/service.js";
import { findFetchStates, findProductById } from "../catalog/repository.js";
import type { Database } from "../db/client.js";
import { RequestError } from "../errors.js";
import { importRecords } from "../ingest/import.js";
import type { ImportLimits } from "../ingest/limits.js";
import type { Embedder } from "../search/embedder.js";
import { pageLine } from "./crawl.js";
import type { Fetcher } from "./fetcher.js";

export interface LiveLookupDeps {
  /** The primary: what a lookup stores is read back from where it was written (a replica may not have it yet). */
  db: Database;
  embedder: Embedder;
  /** The lookups' own fetcher, one per server, so its politeness holds across requests. Null while live lookup is off. */
  fetcher: Fetcher | null;
  limits: ImportLimits;
  /** The catalog's lookups (and their cache), tried first. */
  catalog: Pick<CatalogService, "byUrl" | "byId">;
  /** LIVE_LOOKUP_HOSTS, as brand scopes (lower case, without `www.`); empty: live lookup is off. */
  hosts: readonly string[];
  /** LIVE_LOOKUP_TIMEOUT_MS. */
  timeoutMs: number;
}

export interface LiveLookupService {
  /**
   * The product at `url`: the catalog's when it holds the page (by its URL, or the URL it was last fetched from),
   * else fetched, extracted, stored and read back. `beforeFetch` runs once a fetch is known to be needed, before it
   * starts (the caller's surcharge: a throw stops the lookup there). Throws RequestError for every outcome that is
   * not a product (see the table above).
   */
  lookup(url: string, options: { withRawData: boolean; beforeFetch: () => Promise<void> }): Promise<Product>;
}

/** The port a URL is reached on: its own, else its scheme's. */
function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

/**
 * Whether live lookup may request `url`, by LIVE_LOOKUP_HOSTS (`host`, or `host:port`, as config.ts writes them):
 * http or https, a listed host (its `www.` too), on the scheme's own port unless the entry names another. Asked
 * of the URL a client sends and of every hop the fetcher would take (its `permit`), before any request: a listed
 * merchant's redirect (an open redirect, say) must not turn the server into a probe of other hosts and ports.
 */
export function liveLookupPermit(hosts: readonly string[]): (url: URL) => string | undefined {
  const entries = hosts.map((entry) => {
    const port = /:(\d+)$/.exec(entry)?.[1];
    return port === undefined ? { host: entry, port: undefined } : { host: entry.slice(0, -port.length - 1), port: Number(port) };
  });
  return (url) => {
    const host = url.protocol === "http:" || url.protocol === "https:" ? brandHost(url.href) : null;
    const listed = entries.some((entry) => entry.host === host && (entry.port === undefined ? url.port === "" : entry.port === portOf(url)));
    return listed ? undefined : "not on LIVE_LOOKUP_HOSTS (its scheme, host or port)";
  };
}

/** What a fetch of one page came to: the stored product's id, or the error every lookup waiting on it answers. */
type Outcome = { id: string } | { error: RequestError };

export function createLiveLookup(deps: LiveLookupDeps): LiveLookupService {
  const permit = liveLookupPermit(deps.hosts);
  /** Fetches under way, by URL key: a second lookup of the same page waits for the first one's fetch. */
  const inFlight = new Map<string, Promise<Outcome>>();

  /** The product a URL key is, by its page URL or the URL it was fetched from; null when the catalog has none. */
  async function held(keys: readonly string[]): Promise<string | null> {
    const states = await findFetchStates(deps.db, keys);
    for (const key of keys) {
      const state = states.find((candidate) => candidate.urlKey === key) ?? states.find((candidate) => candidate.fetchKey === key);
      if (state) return state.id;
    }
    return null;
  }

  /** Fetches the page and imports what it holds; an outcome, never a throw, so every lookup waiting on it gets it. */
  async function fetchAndStore(fetcher: Fetcher, url: string, key: string, signal: AbortSignal): Promise<Outcome> {
    const notFound = (why: string) => ({ error: new RequestError("not_found", `No product at that URL: ${why}.`) });
    const fetched = await fetcher.get(url, { accept: "html", signal });
    switch (fetched.kind) {
      case "gone":
        return notFound(`the merchant's page answered ${fetched.status}`);
      case "refused":
        return notFound(`the page was not fetched: ${fetched.reason}`);
      case "not_modified":
        // Only a conditional request is answered 304, and a lookup sends none: the catalog holds no validators for it.
        return { error: new RequestError("upstream_error", "The merchant's site answered 304 to a request that was not conditional.") };
      case "failed":
        if (fetched.failure === "timeout") {
          return { error: new RequestError("upstream_timeout", `The merchant's page did not answer in time: ${fetched.reason}.`) };
        }
        if (fetched.failure === "upstream") return { error: new RequestError("upstream_error", `The merchant's site failed: ${fetched.reason}.`) };
        return notFound(`the page cannot be read: ${fetched.reason}`);
      case "ok":
        break;
    }
    // The fetcher asked `permit` of every hop; checked again here because a page off the list must never be stored.
    if (permit(new URL(fetched.url)) !== undefined)
      return notFound("the page redirected to a URL this server does not fetch from (LIVE_LOOKUP_HOSTS)");
    // Extraction holds the event loop: its budget is counted on the wall clock here, so no lookup holds the server longer.
    const line = pageLine(fetched, url, key, deps.limits, "wall");
    if ("error" in line) return notFound(`the page holds no product that can be stored: ${line.error}`);
    const summary = await importRecords({ db: deps.db, embedder: deps.embedder }, [line]);
    const failure = summary.failures[0];
    if (failure) return notFound(`the page holds no product that can be stored: ${failure.reason}`);
    const keys = [key, productUrlKey(fetched.url), productUrlKey(line.record.url)].filter((k): k is string => k !== null);
    const id = await held(keys);
    // Just stored in the same database: not finding it is a fault of ours, not an answer.
    if (id === null) throw new Error(`live lookup stored ${url} but cannot find it by ${keys.join(", ")}`);
    return { id };
  }

  /** The fetch of this page under way, or a new one; it ends at the deadline of the lookup that started it. */
  function shared(fetcher: Fetcher, url: string, key: string): Promise<Outcome> {
    const running = inFlight.get(key);
    if (running) return running;
    const started = fetchAndStore(fetcher, url, key, AbortSignal.timeout(deps.timeoutMs)).finally(() => inFlight.delete(key));
    inFlight.set(key, started);
    return started;
  }

  /** `work`, or the 504 when it has not settled within the lookup's deadline (what it does is kept when it ends). */
  function withinDeadline<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new RequestError(
              "upstream_timeout",
              `The merchant's page was not fetched and stored within LIVE_LOOKUP_TIMEOUT_MS (${deps.timeoutMs} ms).`,
            ),
          ),
        deps.timeoutMs,
      );
    });
    return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
  }

  return {
    async lookup(url, { withRawData, beforeFetch }) {
      const { fetcher } = deps;
      if (deps.hosts.length === 0 || fetcher === null) {
        throw new RequestError(
          "invalid_parameter",
          "Live lookup is off on this server (LIVE_LOOKUP_HOSTS is not set): leave out fetch=true to look the page up in the catalog.",
          "fetch",
        );
      }
      const key = productUrlKey(url);
      if (key === null) throw new RequestError("invalid_parameter", "must be an absolute http(s) URL", "url");
      const parsed = new URL(url);
      if (permit(parsed) !== undefined) {
        const where = parsed.port ? `${parsed.hostname} on port ${parsed.port}` : parsed.hostname;
        throw new RequestError(
          "invalid_parameter",
          `Fetching is not allowed for ${where}: it is not one of the merchant hosts (and ports) this server fetches from (LIVE_LOOKUP_HOSTS).`,
          "url",
        );
      }
      const product = await deps.catalog.byUrl(url, withRawData);
      if (product) return product;
      const id = await held([key]);
      if (id !== null) {
        const stored = await deps.catalog.byId(id, withRawData);
        if (stored) return stored;
      }
      await beforeFetch();
      const outcome = await withinDeadline(shared(fetcher, url, key));
      if ("error" in outcome) throw outcome.error;
      const stored = await findProductById(deps.db, outcome.id, withRawData);
      if (!stored) throw new Error(`live lookup stored product ${outcome.id} but cannot read it`);
      return stored.product;
    },
  };
}
