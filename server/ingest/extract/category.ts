/**
 * A product's category path from breadcrumbs: the home (root) crumb dropped,
 * and, once the product's name is known, a last crumb naming the product.
 */
import type { Crumb } from "./schema-org.js";

/** "Home" in the languages of the pages we see, and the usual symbols for it. */
const HOME =
  /^(home|home ?page|start|startseite|accueil|inicio|in[íi]cio|casa|pagina iniziale|strona g[łl][óo]wna|etusivu|hjem|hem|forside|úvod|kezd[őo]lap|anasayfa|ana sayfa|главная|首页|首頁|ホーム|홈|トップ|top|shop|store|[⌂🏠]|back|zur[üu]ck|retour)$/iu;

export function categoryFromCrumbs(crumbs: readonly Crumb[]): string[] | undefined {
  const names = crumbs.filter((crumb, index) => !(index === 0 && isHome(crumb))).map((crumb) => crumb.name.trim());
  const segments = names.filter((name) => name.length > 0 && name.length <= 200);
  return segments.length > 0 ? segments.slice(0, 20) : undefined;
}

function isHome(crumb: Crumb): boolean {
  if (HOME.test(crumb.name.trim())) return true;
  if (!crumb.url) return false;
  try {
    return new URL(crumb.url, "https://base.invalid/").pathname.replace(/\/(index\.\w+)?$/, "") === "";
  } catch {
    return false;
  }
}

/** Drops a last segment that names the product itself; undefined when nothing is left. */
export function withoutProduct(segments: readonly string[] | undefined, name: string): string[] | undefined {
  if (!segments) return undefined;
  const key = (text: string) => text.toLowerCase().replace(/\s+/g, " ").trim();
  const last = segments.at(-1);
  const kept =
    last !== undefined && (key(last) === key(name) || (key(name).startsWith(key(last)) && key(last).length > 0.6 * key(name).length))
      ? segments.slice(0, -1)
      : [...segments];
  return kept.length > 0 ? kept : undefined;
}
