/**
 * The platform's profile a request names: the REST binding's `UCP-Agent`
 * header (an RFC 8941 Dictionary, `profile="https://platform.example/profile"`),
 * or MCP's `meta["ucp-agent"].profile`. The protocol requires it on every
 * request; a missing or malformed one is the negotiation error
 * `invalid_profile_url`. The profile is not fetched (this service runs offline
 * and negotiates nothing: it has one version and two capabilities to offer).
 */
import { UcpMetaSchema } from "../../shared/schemas/index.js";

export type AgentReading = { ok: true; profile: string } | { ok: false; reason: string };

/** An absolute http(s) URL, the only kind a profile can be fetched from. */
function isProfileUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

/** The members of an RFC 8941 Dictionary, `key=value` or `key=value;param=…` each, values kept as written. */
function members(header: string): Map<string, string> | null {
  const found = new Map<string, string>();
  let rest = header.trim();
  while (rest.length > 0) {
    const key = /^[a-z*][a-z0-9_.*-]*/.exec(rest)?.[0];
    if (!key) return null;
    rest = rest.slice(key.length);
    let value = "?1";
    if (rest.startsWith("=")) {
      rest = rest.slice(1);
      const item = /^"(?:[^"\\]|\\["\\])*"|^[^;,\s]+/.exec(rest)?.[0];
      if (!item) return null;
      value = item;
      rest = rest.slice(item.length);
    }
    // Parameters of the member (`;foo=bar`) say nothing this service uses.
    rest = rest.replace(/^(;[^,]*)?/, "").trimStart();
    found.set(key, value);
    if (rest.length === 0) break;
    if (!rest.startsWith(",")) return null;
    rest = rest.slice(1).trimStart();
  }
  return found;
}

export function readAgentHeader(header: string | string[] | undefined): AgentReading {
  if (header === undefined || (Array.isArray(header) && header.length === 0)) {
    return { ok: false, reason: 'The UCP-Agent header is required: UCP-Agent: profile="https://your-platform.example/.well-known/ucp".' };
  }
  const dictionary = members(Array.isArray(header) ? header.join(", ") : header);
  const profile = dictionary?.get("profile");
  if (!profile || !/^".*"$/.test(profile)) {
    return { ok: false, reason: 'The UCP-Agent header must be an RFC 8941 dictionary with a string member profile: profile="https://…".' };
  }
  const url = profile.slice(1, -1).replace(/\\(["\\])/g, "$1");
  if (!isProfileUrl(url)) return { ok: false, reason: "The UCP-Agent profile must be an absolute http(s) URL." };
  return { ok: true, profile: url };
}

/** Whether `meta["ucp-agent"].profile` is there at all, whatever it holds: missing and malformed are told apart. */
function hasProfile(meta: unknown): boolean {
  if (typeof meta !== "object" || meta === null || !("ucp-agent" in meta)) return false;
  const agent = meta["ucp-agent"];
  return typeof agent === "object" && agent !== null && "profile" in agent && agent.profile !== undefined;
}

export function readAgentMeta(meta: unknown): AgentReading {
  const parsed = UcpMetaSchema.safeParse(meta);
  if (!parsed.success) {
    return hasProfile(meta)
      ? {
          ok: false,
          reason: 'meta["ucp-agent"].profile is malformed: it must be the absolute http(s) URL of your platform\'s UCP profile, as a string.',
        }
      : { ok: false, reason: 'meta["ucp-agent"].profile is required: the URL of your platform\'s UCP profile.' };
  }
  const { profile } = parsed.data["ucp-agent"];
  if (!isProfileUrl(profile)) return { ok: false, reason: 'meta["ucp-agent"].profile must be an absolute http(s) URL.' };
  return { ok: true, profile };
}
