/**
 * A product's category path from breadcrumbs: the home (root) crumb dropped,
 * and, once the product's name is known, a last crumb naming the product.
 */
import type { Crumb } from "./schema-org.js";
import { htmlToText } from "./text.js";

/** "Home" in the languages of the pages we see, and the usual symbols for it: never a category, wherever it stands. */
const HOME =
  /^(home|home ?page|startseite|accueil|inicio|in[íi]cio|pagina iniziale|strona g[łl][óo]wna|etusivu|forside|úvod|kezd[őo]lap|anasayfa|ana sayfa|главная|首页|首頁|ホーム|홈|[⌂🏠]|(?:back|return|zur[üu]ck|retour)\b.*)$/iu;
/** Words that name the root when they come first ("Shop > Men"), but may be a category further down. */
const ROOT = /^(start|casa|hjem|hem|top|トップ|shop|store|products|all products|produkte|produits|prodotti|productos|produtos)$/iu;

export function categoryFromCrumbs(crumbs: readonly Crumb[]): string[] | undefined {
  const names = crumbs.filter((crumb, index) => !HOME.test(crumb.name.trim()) && !(index === 0 && isRoot(crumb))).map((crumb) => crumb.name.trim());
  return cleanSegments(names);
}

/** Segments as text (entities decoded), repeats collapsed, empty and overlong ones dropped, at most 20. */
export function cleanSegments(names: readonly string[]): string[] | undefined {
  const segments: string[] = [];
  for (const name of names) {
    const text = htmlToText(name);
    if (text.length === 0 || text.length > 200 || text === segments.at(-1)) continue;
    segments.push(text);
  }
  return segments.length > 0 ? segments.slice(0, 20) : undefined;
}

/** A first crumb that names the root, or links to the site's root whatever its name. */
function isRoot(crumb: Crumb): boolean {
  if (ROOT.test(crumb.name.trim())) return true;
  if (!crumb.url) return false;
  try {
    return new URL(crumb.url, "https://base.invalid/").pathname.replace(/\/(index\.\w+)?$/, "") === "";
  } catch {
    return false;
  }
}

/** Drops a last segment that names the product itself (or begins its name); undefined when nothing is left. */
export function withoutProduct(segments: readonly string[] | undefined, name: string): string[] | undefined {
  if (!segments) return undefined;
  const key = (text: string) => text.toLowerCase().replace(/\s+/g, " ").trim();
  const last = key(segments.at(-1) ?? "");
  const product = key(name);
  const names = last === product || (Math.min(last.length, product.length) >= 4 && (product.startsWith(last) || last.startsWith(product)));
  const kept = names ? segments.slice(0, -1) : [...segments];
  return kept.length > 0 ? kept : undefined;
}
