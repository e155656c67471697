import { createHash } from "node:crypto";

/** Stable id for a product that was imported without one: derived from its normalised URL. */
export function productIdFromUrlKey(urlKey: string): string {
  return `pdp_${createHash("sha256").update(urlKey).digest("hex").slice(0, 24)}`;
}
