/**
 * Visible-HTML layer, the last resort: the title and `h1`, the meta
 * description, price-looking text nearest the buy button, stock wording
 * around it, labelled identifiers ("SKU: …", "Art.-Nr. …"), and `itemprop`s
 * that sit outside any microdata item.
 */
import type { Budget } from "./budget.js";
import { type Candidate, cleanGtin, cleanIdentifier, type StockEvidence } from "./candidate.js";
import { ancestors, attr, descendants, type Element, fold, isTag, isText, type Page, someAncestor, textOf } from "./dom.js";
import { propertyValue } from "./microdata.js";
import { categoryFromCrumbs } from "./category.js";
import { currencyInText, normaliseAvailability, parseAmount, sharedSymbolCurrencies, toCurrencyCode } from "./price.js";
import type { Rule, RuleSet } from "./rules.js";
import type { DecimalMark } from "./locale.js";
import { type Crumb, stripUndefined } from "./schema-org.js";
import { STOCK } from "./wording.js";

const PRICE_HINT = /price|preis|prix|prezzo|precio|prijs|cena|pris|hinta|fiyat|цена|amount/i;
const NOT_CURRENT =
  /(?<!b)old|was|strike|regular|compare|before|(?<![a-z])list[-_]?price|original|crossed|saving|(?<![a-z])save|rrp|uvp|msrp|unit-?price|per-|shipping|delivery|installment|monthly|vorher|statt|rabatt|discount|tax|vat|netto|excl/i;
/** Containers of other products: their prices are never this product's. */
const OTHER_PRODUCTS =
  /related|recommend|similar|upsell|up-sell|cross-?sell|also-?(viewed|bought|like)|bought-?together|bundle|recently|suggest|accessor|carousel/i;
const WAS_HINT = /(?<!b)old|was|strike|regular|compare|before|(?<![a-z])list[-_]?price|original|crossed|rrp|uvp|msrp|vorher|statt/i;
type LabelKind = "sku" | "mpn" | "gtin" | "brand";

const ID_LABELS: [string, LabelKind][] = [
  [
    "sku|asin|item\\s*(?:number|no\\.?|#|code|id)|product\\s*(?:code|id|no\\.?|number|#)|art(?:ikel)?\\.?\\s*-?\\s*(?:nr\\.?|nummer|no\\.?)|artikelnummer|bestellnummer|best\\.-nr\\.?|code (?:article|produit)|r[ée]f(?:[ée]rence)?\\.?|codice(?: articolo| prodotto)?|c[óo]digo(?: del producto)?|numer katalogowy|cikksz[áa]m|[šs]ifra(?: izdelka| proizvoda)?|varenr\\.?|varenummer|artnr\\.?|tuotenumero|stock code|catalog(?:ue)? (?:number|no\\.?)|k[óo]d (?:produktu|tovaru|towaru)|арт(?:икул)?\\.?|код товара|商品(?:編號|编号|番号)|品番",
    "sku",
  ],
  [
    "mpn|(?:item\\s*)?model(?:\\s*name\\s*/\\s*number|\\s*(?:number|no\\.?|#|code))?|modello|part\\s*(?:number|no\\.?|#)|mfr\\.?\\s*(?:part\\s*)?(?:number|no\\.?|#)|manufacturer\\s*(?:part\\s*)?(?:number|no\\.?|reference)|herstellernummer|hersteller-?(?:artikel)?nr\\.?|herstellerreferenz|modell(?:nummer)?|numero (?:di )?modello|num[ée]ro (?:du )?mod[èe]le|n[úu]mero de modelo|r[ée]f[ée]rence (?:du )?fabricant|referencia del fabricante",
    "mpn",
  ],
  ["ean(?:-?13)?|gtin(?:-?1[234])?|upc|isbn(?:-?1[03])?|barcode", "gtin"],
  [
    "brand|marke|marque|marca|merk|producent|hersteller|manufacturer|v[ýy]robc[ea]|gy[áa]rt[óo]|proizvajalec|proizvo[đd]a[čc]|valmistaja|tillverkare|бренд|производитель|品牌|ブランド",
    "brand",
  ],
];
/** Any label at the start of a text: one test that most texts fail, before the per-kind ones. */
const ANY_LABEL = new RegExp(`^(?:${ID_LABELS.map(([label]) => label).join("|")})`, "i");
const CODE = "[A-Za-z0-9][\\w\\-./]{1,40}";
const NAME = "[^\\s:|][^:|]{0,39}";
const LABELS = ID_LABELS.map(([label, kind]) => {
  const value = kind === "brand" ? NAME : CODE;
  return {
    kind,
    value: new RegExp(`^${value}$`),
    alone: new RegExp(`^(?:${label})\\s*[:#.]?\\s*$`, "i"),
    inline: new RegExp(`^(?:${label})\\s*[:#]\\s*(${value})$${kind === "brand" ? "" : `|^(?:${label})\\s+(${value})$`}`, "i"),
  };
});

/** `decimal`: the page's decimal mark (locale.ts), for the price texts that leave it open. */
export function visibleLayer(page: Page, rules: RuleSet, decimal?: DecimalMark): Candidate {
  const candidate: Candidate = { layer: "visible" };
  const how: NonNullable<Candidate["how"]> = {};
  const titleTag = page.byTag("title")[0];
  const h1Element = page.byTag("h1").find((element) => {
    const text = textOf(element, 2_000);
    return text.length >= 2 && text.length <= 300 && !isHidden(element);
  });
  const h1 = h1Element ? textOf(h1Element, 2_000) : undefined;
  const titleText = titleTag ? textOf(titleTag, 2_000) : "";
  const titled = page.elements.find(
    (element) =>
      /(?:^|[\s_-])product[-_]?(?:title|name)(?:$|[\s_-])|^productTitle$/i.test(
        `${element.attribs.id ?? ""} ${element.attribs.class ?? ""}`.trim(),
      ) && !isHidden(element),
  );
  const titledText = titled ? textOf(titled, 2_000) : "";
  candidate.name = (titledText.length >= 2 && titledText.length <= 300 ? titledText : undefined) ?? h1 ?? (cleanTitle(titleText) || undefined);
  const description = page.byTag("meta").find((meta) => (meta.attribs.name ?? "").toLowerCase() === "description");
  const descText = description ? fold(description.attribs.content ?? "") : "";
  if (descText) candidate.desc = descText;

  const loose = looseItemprops(page, decimal);
  Object.assign(candidate, loose);
  for (const field of ["price", "availability", "sku", "mpn", "gtin", "brand"] as const) {
    if (field === "brand" ? loose.brands : loose[field]) how[field] = "itemprop";
  }
  const title = titled ?? h1Element;
  const button = findBuyButton(page);
  if (candidate.price === undefined) {
    const found = priceNear(page, button, title, rules, decimal) ?? priceInDescription(page, rules, decimal);
    if (found) {
      Object.assign(candidate, found.facts);
      how.price = found.how;
    }
  }
  const stock = stockNear(button, page, rules);
  if (candidate.availability === undefined && stock) {
    candidate.availability = stock.availability;
    how.availability = stock.how;
  }
  candidate.stock = stockEvidence(page, button);
  const labelled = rules.on("visible.labelled_identifiers") ? labelledIdentifiers(page) : {};
  for (const field of ["sku", "mpn", "gtin"] as const) {
    if (candidate[field] === undefined && labelled[field] !== undefined) {
      candidate[field] = labelled[field];
      how[field] = "visible.labelled_identifiers";
    }
  }
  if (candidate.sku === undefined && rules.on("visible.named_sku_element")) {
    candidate.sku = namedIdentifier(page);
    if (candidate.sku) how.sku = "visible.named_sku_element";
  }
  if (!candidate.brands) {
    const brand = brandNearTitle(title, rules) ?? (labelled.brand ? { name: labelled.brand, how: "visible.labelled_identifiers" } : undefined);
    if (brand) {
      candidate.brands = [brand.name];
      how.brand = brand.how;
    }
  }
  const category = visibleBreadcrumbs(page);
  if (category) candidate.category = category;
  const images = productImages(page);
  if (images.length) candidate.images = images;
  if (Object.keys(how).length > 0) candidate.how = how;
  return stripUndefined(candidate);
}

const CHROME = new Set(["header", "nav", "footer"]);
const BRAND_NAMED = /(?:^|[-_\s])(?:brand|brand-?name|product-?brand|manufacturer|designer)(?:$|[-_\s])|^(?:brand|manufacturer)$/i;
/** Classes of the site's own logo or of brand listings (filters, menus), never the product's brand. */
const NOT_THE_BRAND = /navbar|logo-?link|site-?brand|header|menu|filter|facet|refine|list|carousel|slider|related|recommend/i;

/**
 * The brand as the page shows it by the product's title: an element named for
 * the brand (its text, or its logo's alt/title), or a byline ("Visit the Acme
 * Store", "Brand: Acme", "by Acme"); the nearest to the title wins, within
 * four levels of it. Elsewhere on a page, brand-named elements are the site's
 * logo, menus and filters far more often than the product's brand.
 */
function brandNearTitle(title: Element | undefined, rules: RuleSet): { name: string; how: Rule } | undefined {
  if (!title || !(rules.on("visible.brand_element") || rules.on("visible.brand_byline"))) return undefined;
  // Level by level: the title's own subtree, then each ancestor's other children, so every element is seen once.
  let inner: Element = title;
  for (const region of [title, ...ancestors(title).slice(0, 4)]) {
    if (region.name === "body" || CHROME.has(region.name)) break;
    const tops = region === title ? [title] : region.children.filter(isTag).filter((child) => child !== inner);
    for (const element of tops.flatMap((top) => [top, ...descendants(top)])) {
      const names = `${element.attribs.class ?? ""} ${element.attribs.id ?? ""} ${element.attribs["data-testid"] ?? ""}`;
      if (rules.on("visible.brand_element") && BRAND_NAMED.test(names) && !NOT_THE_BRAND.test(names)) {
        const name = brandFromElement(element);
        if (name && /\p{L}/u.test(name)) return { name, how: "visible.brand_element" };
      }
      if (rules.on("visible.brand_byline") && (/byline/i.test(names) || element.name === "a")) {
        const name = brandInByline(textOf(element, 200));
        if (name) return { name, how: "visible.brand_byline" };
      }
    }
    inner = region;
  }
  return undefined;
}

/** Bylines that name the brand: a store to visit ("Visit the Acme Store", in the usual languages), a label, "by Acme". */
const BYLINES = [
  /^visit the (.+?) store$/i,
  /^besuchen sie den (.+?)[- ]store$/i,
  /^visita lo store di (.+)$/i,
  /^visita la tienda de (.+)$/i,
  /^visiter la boutique (?:de )?(.+)$/i,
  /^bezoek de (.+?)[- ]store$/i,
  /^(?:brand|marke|marque|marca|merk|marka)\s*:\s*(.+)$/i,
  /^(?:by|von|par|door|przez)\s+(\S.{0,48})$/i,
];

/** "Visit the Acme Store", "Brand: Acme", "by Acme" → "Acme". */
export function brandInByline(text: string): string | undefined {
  for (const pattern of BYLINES) {
    const match = pattern.exec(text);
    if (match) return cleanBrandName(match[1]!);
  }
  return undefined;
}

/**
 * The brand an element names (zyte-parsers' reading: its text, else an image's alt or title within two
 * levels), cleaned of labels ("Brand: …") and of words that name a logo rather than a brand.
 */
export function brandFromElement(element: Element): string | undefined {
  const text = element.name === "img" ? "" : textOf(element, 200);
  if (text) return text.length < 50 ? cleanBrandName(text) : undefined;
  const images =
    element.name === "img" ? [element] : descendants(element).filter((child) => child.name === "img" && ancestors(child).indexOf(element) < 2);
  for (const image of images) {
    for (const value of [image.attribs.alt, image.attribs.title]) {
      const name = value ? cleanBrandName(fold(value)) : undefined;
      if (name && name.length < 50) return name;
    }
  }
  return undefined;
}

function cleanBrandName(raw: string): string | undefined {
  const name = fold(raw)
    .replace(/^(?:brand|marke|marque|marca|merk|marka|hersteller|manufacturer|by)\s*[:：]\s*/i, "")
    .replace(/\s+(?:logo|brand logo)$/i, "")
    .replace(/^[\s|•·:,;–—-]+|[\s|•·:,;–—-]+$/g, "");
  if (name.length < 2 || name.length >= 50) return undefined;
  if (/^(?:logo|brand|brands|home|shop|store|n\/a|none|other|unbranded|generic|no brand|unknown)$/i.test(name)) return undefined;
  return /[{}$<>]/.test(name) ? undefined : name;
}

/** The trail of a visible breadcrumb (an element labelled or named for breadcrumbs), as a category. */
function visibleBreadcrumbs(page: Page): string[] | undefined {
  const trail = page.elements.find(
    (element) =>
      element.name !== "script" &&
      (/breadcrumb/i.test(element.attribs["aria-label"] ?? "") ||
        /(?:^|[-_\s])breadcrumbs?(?:$|[-_\s])/i.test(`${element.attribs.class ?? ""} ${element.attribs.id ?? ""}`)),
  );
  if (!trail) return undefined;
  const links = descendants(trail).filter((element) => element.name === "a");
  const crumbs: Crumb[] = links
    .map((link) => ({ name: textOf(link, 200), url: link.attribs.href }))
    .filter((crumb) => crumb.name.length > 0)
    .map((crumb) => (crumb.url ? { name: crumb.name, url: crumb.url } : { name: crumb.name }));
  return categoryFromCrumbs(crumbs);
}

function cleanTitle(title: string): string {
  const parts = title
    .split(/\s+[|–—-]\s+/)
    .map((part) => part.trim())
    .filter(Boolean);
  return parts[0] ?? title;
}

function insideItem(element: Element): boolean {
  return ancestors(element).some((parent) => parent.attribs.itemscope !== undefined);
}

function looseItemprops(page: Page, decimal: DecimalMark | undefined): Partial<Candidate> {
  const found: Partial<Candidate> = {};
  for (const element of page.elements) {
    page.budget.tick();
    const names = element.attribs.itemprop;
    if (names === undefined || element.attribs.itemscope !== undefined) continue;
    if (insideItem(element)) continue;
    const value = propertyValue(element);
    if (!value) continue;
    for (const name of names.toLowerCase().split(/\s+/)) {
      if ((name === "price" || name === "lowprice") && found.price === undefined) {
        const currency = currencyInText(value);
        found.price = parseAmount(value, currency, decimal) ?? undefined;
        if (found.price && currency) {
          found.currency ??= currency;
          found.currencies ??= sharedSymbolCurrencies(value);
        }
      } else if (name === "pricecurrency") found.currency ??= toCurrencyCode(value) ?? undefined;
      else if (name === "availability") found.availability ??= normaliseAvailability(value) ?? undefined;
      else if (name === "sku" || name === "productid") found.sku ??= cleanIdentifier(value);
      else if (name === "mpn") found.mpn ??= cleanIdentifier(value);
      else if (name.startsWith("gtin") || name === "isbn") found.gtin ??= cleanGtin(value);
      else if (name === "brand" && value.length <= 100) found.brands ??= [value];
    }
  }
  return stripUndefined(found);
}

function describe(element: Element): string {
  const a = element.attribs;
  return `${a.class ?? ""} ${a.id ?? ""} ${a.name ?? ""} ${a["data-testid"] ?? ""} ${a["data-test"] ?? ""} ${a["aria-label"] ?? ""}`;
}

/** Containers whose buttons are not the product's: other products, chrome, and templates of what appears after a click. */
const NOT_THE_PRODUCTS_BUTTON = /template|mini-?cart|cart-?drawer|flyout|acknowledg|added-?to-?cart/i;

function elsewhere(element: Element): boolean {
  return ancestors(element).some((parent) => {
    // The body's and root's classes are page-wide flags, not a container's name.
    if (parent.name === "body" || parent.name === "html") return false;
    const names = `${parent.attribs.class ?? ""} ${parent.attribs.id ?? ""}`;
    return CHROME.has(parent.name) || parent.name === "template" || OTHER_PRODUCTS.test(names) || NOT_THE_PRODUCTS_BUTTON.test(names);
  });
}

export function findBuyButton(page: Page): Element | undefined {
  const candidates = [...page.byTag("button"), ...page.byTag("input"), ...page.byTag("a")];
  let best: Element | undefined;
  for (const element of candidates) {
    if (element.name === "input" && !["submit", "button", "image"].includes((element.attribs.type ?? "").toLowerCase())) continue;
    const label = element.name === "input" ? (element.attribs.value ?? "") : textOf(element, 200);
    if (label.length > 60) continue;
    if (STOCK.buy.test(label) || STOCK.buy.test(describe(element))) {
      // Buttons of other products (carousels, "you may also like"), of the mini-cart and of templates do not count.
      if (elsewhere(element)) continue;
      if (!best || (best.name === "a" && element.name !== "a")) best = element;
      if (element.name !== "a") break;
    }
  }
  if (best) return best;
  return page.elements.find(
    (element) => element.name === "form" && /cart|basket|warenkorb|panier|carrello/i.test(element.attribs.action ?? "") && !elsewhere(element),
  );
}

function priceText(element: Element): string | undefined {
  const content = element.attribs.content;
  if (content && /\d/.test(content)) return content;
  let text = textOf(element, 300);
  // A visible price and its screen-reader copy side by side: `$8.99$8.99`.
  const half = text.length / 2;
  if (Number.isInteger(half) && half > 0 && text.slice(0, half) === text.slice(half)) text = text.slice(0, half);
  if (text.length === 0 || text.length > 60 || !/\d/.test(text)) return undefined;
  return text;
}

/** Texts that show a price but not this product's: delivery, instalments, list prices, and prices per unit of measure. */
const NOT_A_PRICE_TEXT =
  /deliver|shipping|versand|livraison|spedizione|env[ií]o|porto|verzend|dostaw|frakt|^\+|\/\s*(month|mo|mes|monat|mois)\b|per month|\b(rrp|uvp|msrp|was|list price|statt|reg\.|regular|before|prix conseill[ée]|prezzo consigliato|vorher)\b|(?:\/|\bper\b|\bje\b|\bpro\b|\bpar\b|\bal\b)\s*(?:1\s*|100\s*|10\s*)?(?:kg|g|mg|l|cl|ml|m|m²|m2|m³|qm|lb|oz|fl\.? ?oz|ft|stk|st|unit|pc|piece|each|kilo|liter|litre)\b/i;
/** Two amounts in one text (a container of was and now prices): look at its parts instead. */
const TWO_AMOUNTS = /\d[\d.,]*\D+\d[\d.,]*\D*$/;

/**
 * A word for the price opening an element's text: "Price:", "Our price:", "Preis:", "售價", "最低價", "価格".
 * Words for a former or suggested price (原價, 定價, 市價, 建議售價) are not this one; a Western word needs its colon.
 */
const PRICE_LABEL =
  /^(?:(?:our|sale|special|offer|your|now|current|selling)\s+)?(?:price|preis|prix|prezzo|precio|pre[çc]o|prijs|cena|pris|hinta|fiyat|цена)\s*[:：]|^(?!原|定|市|建議|建议|參考|参考)\p{Script=Han}{0,4}[價价]|^(?:販売)?価格|^(?:판매)?가격/iu;

/** How an element shows itself as a price: named for it (class, id, itemprop), or opening with a word for it. */
function priceElementKind(element: Element, labels: boolean): "named" | "labelled" | undefined {
  if (["del", "s", "strike", "option", "select", "input", "script", "style"].includes(element.name)) return undefined;
  const named = PRICE_HINT.test(`${describe(element)} ${element.attribs.itemprop ?? ""}`);
  if (!named) {
    // Cheap tests first: most elements are neither named nor labelled.
    const opening = labels ? element.children.find((child) => isTag(child) || (isText(child) && child.data.trim() !== "")) : undefined;
    if (!opening || !isText(opening) || !PRICE_LABEL.test(opening.data.trimStart().slice(0, 40))) return undefined;
  }
  if (NOT_CURRENT.test(`${element.attribs.class ?? ""} ${element.attribs.id ?? ""}`)) return undefined;
  return named ? "named" : "labelled";
}

interface PriceScope {
  budget: Budget;
  /** Inside a container of other products (related, recommended…), remembered across the searches of one page. */
  amongOthers: (element: Element) => boolean;
  decimal: DecimalMark | undefined;
}

/** The first price among the elements, and whether its element was only labelled as one. */
function priceFrom(elements: Element[], scope: PriceScope, labels = false): { facts: Partial<Candidate>; labelled: boolean } | undefined {
  const { decimal } = scope;
  for (const element of elements) {
    scope.budget.tick();
    const kind = priceElementKind(element, labels);
    if (!kind) continue;
    if (scope.amongOthers(element)) continue;
    if (ancestors(element, 3).some((parent) => ["del", "s", "strike"].includes(parent.name) || WAS_HINT.test(parent.attribs.class ?? ""))) continue;
    const text = priceText(element);
    if (
      !text ||
      NOT_A_PRICE_TEXT.test(text) ||
      (!element.attribs.content && TWO_AMOUNTS.test(text) && (text.match(/\d+(?:[.,]\d+)*/g) ?? []).length > 1)
    )
      continue;
    const currency = currencyInText(text);
    if (!currency && !element.attribs.content) continue;
    const amount = parseAmount(text, currency, decimal);
    if (!amount || Number(amount) === 0) continue;
    const found: Partial<Candidate> = { price: amount, priceText: text };
    if (currency) found.currency = currency;
    const shared = sharedSymbolCurrencies(text);
    if (shared) found.currencies = shared;
    const was = wasNear(element, currency);
    if (was && Number(was) > Number(amount)) found.was = was;
    return { facts: found, labelled: kind === "labelled" };
  }
  return undefined;
}

function wasNear(element: Element, currency: string | null): string | undefined {
  const container = ancestors(element)[2];
  if (!container) return undefined;
  for (const other of descendants(container)) {
    const isWas = ["del", "s", "strike"].includes(other.name) || WAS_HINT.test(other.attribs.class ?? "");
    if (!isWas) continue;
    const text = textOf(other, 200);
    if (text.length > 40 || !/\d/.test(text)) continue;
    const amount = parseAmount(text, currency);
    if (amount) return amount;
  }
  return undefined;
}

/**
 * The price nearest the buy button (climbing at most 8 levels), else nearest
 * the product's title (6 levels), else the first price-looking text outside
 * header, nav and footer. By the button and the title, an element opening with
 * a word for the price ("Price: $12") counts as one named for it.
 */
export function priceNear(
  page: Page,
  button: Element | undefined,
  title: Element | undefined,
  rules: RuleSet,
  decimal?: DecimalMark,
): { facts: Partial<Candidate>; how: Rule } | undefined {
  const labels = rules.on("visible.price_labelled");
  const scope: PriceScope = {
    decimal,
    budget: page.budget,
    amongOthers: someAncestor((parent) => OTHER_PRODUCTS.test(`${parent.attribs.class ?? ""} ${parent.attribs.id ?? ""}`)),
  };
  const climb = (anchor: Element, levels: number, how: Rule): { facts: Partial<Candidate>; how: Rule } | undefined => {
    let level = 0;
    for (const container of ancestors(anchor)) {
      if (++level > levels || container.name === "body") break;
      const found = priceFrom(descendants(container), scope, labels);
      if (found) return { facts: found.facts, how: found.labelled ? "visible.price_labelled" : how };
    }
    return undefined;
  };
  const byButton = button && rules.on("visible.price_near_buy_button") ? climb(button, 8, "visible.price_near_buy_button") : undefined;
  if (byButton) return byButton;
  const byTitle = title && rules.on("visible.price_near_title") ? climb(title, 6, "visible.price_near_title") : undefined;
  if (byTitle) return byTitle;
  if (!rules.on("visible.price_anywhere")) return undefined;
  const chrome = new Set(["header", "nav", "footer"].flatMap((tag) => page.byTag(tag).flatMap((element) => descendants(element))));
  const main = page.elements.filter((element) => !chrome.has(element));
  const anywhere = priceFrom(main, scope);
  return anywhere ? { facts: anywhere.facts, how: "visible.price_anywhere" } : undefined;
}

/** An amount written with its currency: `€41.30`, `119,01€`, `$ 2320`, `2,900원`, `EUR 12`. */
const AMOUNT_WITH_CURRENCY =
  /(?:[$€£¥₩₹]|\b[A-Z]{3}\b|(?<![A-Za-z])(?:Rs\.?|kr|zł|Kč|Ft|руб\.?))\s?\d[\d.,' ]*|\d[\d.,' ]*\s?(?:[$€£¥₩₹원円]|\b[A-Z]{3}\b|(?:kr|zł|Kč|Ft|руб)(?![A-Za-z]))/g;
/** Words before an amount that make it a threshold or a saving ("free delivery on orders over £50", "save €10"), not the price. */
const NOT_THE_PRICE_BEFORE = /(?:over|above|from|ab|d[èe]s|save|spare|sparen|économisez|off|up to|bis zu|jusqu'à|\+)\s*$/i;

/**
 * The price the page's description states for search results and link previews ("… for €41.30",
 * "… : 74,95 €", "直購價：$2320"), when the page shows no price element: the first amount written
 * with its currency that is not a delivery charge, a threshold or a saving.
 */
function priceInDescription(page: Page, rules: RuleSet, decimal: DecimalMark | undefined): { facts: Partial<Candidate>; how: Rule } | undefined {
  if (!rules.on("visible.price_in_description")) return undefined;
  const descriptions = page
    .byTag("meta")
    .filter((meta) => /^(?:description|og:description)$/i.test(meta.attribs.name ?? meta.attribs.property ?? ""))
    .map((meta) => fold(meta.attribs.content ?? ""));
  for (const text of descriptions) {
    for (const match of text.slice(0, 1_000).matchAll(AMOUNT_WITH_CURRENCY)) {
      const before = text.slice(Math.max(0, match.index - 40), match.index);
      const written = match[0].trim().replace(/[.,' ]+$/, "");
      if (NOT_A_PRICE_TEXT.test(`${before}${written}`) || NOT_THE_PRICE_BEFORE.test(before)) continue;
      const currency = currencyInText(written);
      const amount = currency ? parseAmount(written, currency, decimal) : null;
      if (!currency || !amount || Number(amount) === 0) continue;
      const shared = sharedSymbolCurrencies(written);
      return {
        facts: { price: amount, priceText: written, currency, ...(shared ? { currencies: shared } : {}) },
        how: "visible.price_in_description",
      };
    }
  }
  return undefined;
}

const STOCK_HINT = /availab|stock|inventory|lieferbar|verf[üu]gbar|dispon|voorraad|lager|magazyn|sklad|наличи/i;

/**
 * Elements that announce stock ("availability", "stock-status", …) in a few
 * words. Labels of states (class names with "unavailable", "label", "variation")
 * and texts repeated as templates are ignored; statements that disagree cancel out.
 */
function stockStatement(page: Page): string | undefined {
  const verdicts = new Map<string, { verdict: string; count: number }>();
  for (const element of page.elements) {
    page.budget.tick();
    if (["script", "style", "option", "select", "li", "a", "template"].includes(element.name)) continue;
    const description = `${element.attribs.class ?? ""} ${element.attribs.id ?? ""}`;
    if (!STOCK_HINT.test(description) || STOCK_STATE_LABEL.test(description) || isHidden(element)) continue;
    const text = textOf(element, 300);
    if (text.length === 0 || text.length > 100) continue;
    const verdict = STOCK.outOfStock.test(text) ? "OutOfStock" : STOCK.inStock.test(text) ? "InStock" : undefined;
    if (!verdict) continue;
    const entry = verdicts.get(text);
    if (entry) entry.count++;
    else verdicts.set(text, { verdict, count: 1 });
  }
  const kinds = new Set([...verdicts.values()].filter((entry) => entry.count <= 3).map((entry) => entry.verdict));
  return kinds.size === 1 ? [...kinds][0] : undefined;
}

const STOCK_STATE_LABEL = /unavailable|variation|label|template|notify|hidden|(?<![a-z])hide/i;

function isHidden(element: Element): boolean {
  return [element, ...ancestors(element, 6)].some(
    (node) =>
      node.attribs.hidden !== undefined ||
      /display\s*:\s*none/i.test(node.attribs.style ?? "") ||
      /(?:^|\s)(hidden|d-none|is-hidden|hide)(?:\s|$)/i.test(node.attribs.class ?? ""),
  );
}

function buttonDisabled(button: Element): boolean {
  return (
    attr(button, "disabled") !== undefined ||
    attr(button, "aria-disabled") === "true" ||
    /disabled|sold-?out|unavailable/i.test(button.attribs.class ?? "")
  );
}

/**
 * What the page shows about stock. Out-of-stock wording counts only where
 * nothing can be bought: beside an enabled buy button it is most often one
 * size or colour's label, or a template shown later, and the page is left
 * saying nothing rather than sold out.
 */
function stockNear(button: Element | undefined, page: Page, rules: RuleSet): { availability: string; how: Rule } | undefined {
  const enabled = button !== undefined && !buttonDisabled(button);
  const stated = rules.on("visible.stock_wording") ? stockStatement(page) : undefined;
  if (stated === "InStock" || (stated === "OutOfStock" && !enabled)) return { availability: stated, how: "visible.stock_wording" };
  if (!button || stated === "OutOfStock") return undefined;
  if (!enabled) {
    const says = STOCK.outOfStock.test(textOf(button, 200)) || soldOutAround(button);
    return says && rules.on("visible.stock_wording") ? { availability: "OutOfStock", how: "visible.stock_wording" } : undefined;
  }
  if (rules.on("visible.stock_wording") && soldOutAround(button)) return undefined;
  return rules.on("visible.enabled_button_in_stock") ? { availability: "InStock", how: "visible.enabled_button_in_stock" } : undefined;
}

/**
 * What the page shows of whether it sells (issue 51), each signal yes or no, for evidence.ts to weigh: the buy
 * control and whether it can be used, a quantity selector, a delivery estimate, "notify me", and stock wording
 * (an element named for stock, or the words by the buy control). Hidden elements, templates, chrome and other
 * products' boxes say nothing about this product. One pass over the page.
 */
function stockEvidence(page: Page, button: Element | undefined): StockEvidence {
  const stated = stockStatement(page);
  const enabled = button !== undefined && !buttonDisabled(button);
  const evidence: StockEvidence = {
    buyEnabled: enabled,
    buyDisabled: button !== undefined && !enabled,
    quantity: false,
    delivery: false,
    notify: false,
    inStockWording: stated === "InStock",
    outOfStockWording: stated === "OutOfStock" || (button !== undefined && (STOCK.outOfStock.test(textOf(button, 200)) || soldOutAround(button))),
  };
  const notThisProducts = (element: Element) =>
    element.name !== "body" &&
    element.name !== "html" &&
    (CHROME.has(element.name) ||
      element.name === "template" ||
      NOT_THE_PRODUCTS_BUTTON.test(`${element.attribs.class ?? ""} ${element.attribs.id ?? ""}`) ||
      OTHER_PRODUCTS.test(`${element.attribs.class ?? ""} ${element.attribs.id ?? ""}`));
  const inOthers = someAncestor(notThisProducts);
  const away = (element: Element) => notThisProducts(element) || inOthers(element);
  for (const element of page.elements) {
    page.budget.tick();
    if (["script", "style", "option", "template", "noscript"].includes(element.name)) continue;
    const quantity =
      !evidence.quantity &&
      (element.name === "select" || (element.name === "input" && (element.attribs.type ?? "").toLowerCase() !== "hidden")) &&
      STOCK.quantity.test(`${element.attribs.name ?? ""} ${element.attribs.id ?? ""} ${element.attribs.class ?? ""}`);
    const own = element.children
      .filter(isText)
      .map((node) => node.data)
      .join(" ");
    const worded = own.length >= 3 && own.length < 160 && (STOCK.delivery.test(own) || STOCK.notify.test(own));
    if (!quantity && !worded) continue;
    if (isHidden(element) || away(element)) continue;
    if (quantity) evidence.quantity = true;
    if (worded && STOCK.delivery.test(own)) evidence.delivery = true;
    if (worded && STOCK.notify.test(own)) evidence.notify = true;
  }
  return evidence;
}

/** Out-of-stock wording in the buy button's neighbourhood (not in option lists). */
function soldOutAround(button: Element): boolean {
  const region = ancestors(button)[3] ?? ancestors(button)[0];
  if (!region) return false;
  for (const element of descendants(region)) {
    if (["option", "li", "select", "script", "style"].includes(element.name)) continue;
    const own = element.children
      .filter(isText)
      .map((node) => node.data)
      .join(" ");
    if (own.length > 0 && own.length < 120 && STOCK.outOfStock.test(own)) return true;
  }
  return false;
}

/** "SKU: 123", "Art.-Nr. 123", "Brand: Acme" — in one text, or the label then the value in the next node. */
function labelledIdentifiers(page: Page): Partial<Record<LabelKind, string>> {
  const found: Partial<Record<LabelKind, string>> = {};
  for (const element of page.elements) {
    page.budget.tick();
    if (["script", "style", "option", "title", "a", "button", "select", "textarea"].includes(element.name)) continue;
    for (const child of element.children) {
      if (!isText(child)) continue;
      if (child.data.length < 3) continue;
      const text = fold(child.data);
      if (text.length < 3 || text.length > 60 || !ANY_LABEL.test(text)) continue;
      for (const { kind, alone, inline, value: shape } of LABELS) {
        if (found[kind]) continue;
        const clean = (value: string | undefined): string | undefined => {
          if (!value) return undefined;
          const cleaned = kind === "gtin" ? cleanGtin(value) : kind === "brand" ? cleanBrand(value) : cleanIdentifier(value);
          return cleaned && (kind === "brand" || /\d/.test(cleaned)) ? cleaned : undefined;
        };
        const match = inline.exec(text);
        let value = clean(match ? (match[1] ?? match[2]) : undefined);
        if (!value && alone.test(text)) {
          // The value in the next sibling, or (the label alone in its element) in the element's next sibling.
          value = clean(valueAfterLabel(child.next, shape));
          if (!value && textOf(element, 100) === text) value = clean(valueAfterLabel(element.next, shape));
        }
        if (value) found[kind] = value;
      }
    }
  }
  return found;
}

const SKU_NAMED =
  /(?:^|[-_\s])(?:sku|product[-_]?(?:ref|reference|code|number|no|id)|article[-_]?(?:number|no|nr)|item[-_]?(?:number|no|code)|artikelnummer|art[-_]?nr)(?:$|[-_\s])/i;

/** An element named for the SKU (`class="product-code"`, `data-qa-qualifier="product-reference"`) holding just a code. */
function namedIdentifier(page: Page): string | undefined {
  for (const element of page.elements) {
    page.budget.tick();
    if (["script", "style", "input", "option", "meta", "link", "a", "button"].includes(element.name)) continue;
    const names = Object.entries(element.attribs)
      .filter(([name]) => name === "class" || name === "id" || name.startsWith("data-"))
      .map(([, value]) => value)
      .join(" ");
    if (!SKU_NAMED.test(names)) continue;
    const text = textOf(element, 100).replace(/^[^:#]{0,25}[:#]\s*/, "");
    if (/^[A-Za-z0-9][\w\-./]{1,40}$/.test(text) && /\d/.test(text)) return cleanIdentifier(text);
  }
  return undefined;
}

function cleanBrand(value: string): string | undefined {
  const brand = value.trim();
  return brand.length >= 2 && !/^(n\/a|none|other|unbranded|generic|-)$/i.test(brand) && !/[{}$<>]/.test(brand) ? brand : undefined;
}

function valueAfterLabel(node: Element["next"], shape: RegExp): string | undefined {
  let current = node;
  for (let hops = 0; current && hops < 4; hops++, current = current.next) {
    const text = isText(current) ? fold(current.data) : isTag(current) ? textOf(current, 200) : "";
    if (text === "" || text === ":") continue;
    const value = text
      .replace(/^[:#]\s*/, "")
      .replace(/[\u200e\u200f]/g, "")
      .trim();
    return shape.test(value) ? value : undefined;
  }
  return undefined;
}

/**
 * The product's identifier as the page's own URL carries it: an id-like query
 * parameter, a numeric last path segment, a code-like one (`B07FW264WL`,
 * `M14876706`) or a long number ending a slug. The last resort for the SKU.
 */
export function identifierInUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  for (const [key, value] of url.searchParams) {
    if (
      /^(sku|pid|product_?id|productcode|item_?id|itemno|article_?id|art(icle)?no|prod(uct)?)$/i.test(key) &&
      /^[A-Za-z0-9][\w-]{2,30}$/.test(value) &&
      /\d/.test(value)
    )
      return value;
  }
  const segments = url.pathname.split("/").filter(Boolean);
  const last = (segments[segments.length - 1] ?? "").replace(/\.(html?|php|aspx?)$/i, "");
  if (/^\d{5,20}$/.test(last)) return last;
  if (/^(?=.*[A-Z])(?=(?:.*\d){2})[A-Z0-9]{6,20}$/.test(last)) return last;
  const tail = /[-_](\d{5,20})$/.exec(last);
  if (tail) return tail[1];
  return undefined;
}

function productImages(page: Page): string[] {
  const urls: string[] = [];
  for (const image of page.byTag("img")) {
    const description = `${describe(image)} ${image.attribs.alt ?? ""}`;
    if (!/product|main|hero|gallery|zoom|primary/i.test(description)) continue;
    const src = image.attribs.src ?? image.attribs["data-src"] ?? image.attribs["data-zoom-image"];
    if (!src || src.startsWith("data:") || urls.includes(src)) continue;
    urls.push(src);
    if (urls.length >= 5) break;
  }
  return urls;
}
