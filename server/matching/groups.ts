/** Product group ids: opaque, prefixed, and kept by the records that stay in a group. */
import { createHash } from "node:crypto";

/** The group a record starts in, alone (migration 0017 gives records stored before the same). */
export function ownGroupId(productId: string): string {
  return `grp_${createHash("md5").update(productId).digest("hex").slice(0, 20)}`;
}

/** The group a record starts when it leaves one that others stay in (and keep the id of): new, and its own. */
export function leaverGroupId(productId: string, contentHash: string): string {
  return `grp_${createHash("md5").update(`${productId}:${contentHash}`).digest("hex").slice(0, 20)}`;
}
