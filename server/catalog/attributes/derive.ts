/**
 * What a product is and whom it is for, derived once, on import, from its structured data (the page's JSON-LD and its
 * variants' options), its category and its name: kind, audience (sex and age range), species, size, colours and
 * materials. Stored as columns (db/schema.ts) that filters and facets read; written beside the structured columns, so
 * `DERIVED_VERSION` (structured.ts) names this derivation too. The word readers are the search's own (sexes.ts,
 * ages.ts, species.ts, bed-sizes.ts, product-type.ts); the colour, material and children's words are data files
 * (lexicon.ts).
 */
import { type AgeRange, productAges } from "../../search/ages.js";
import { bedSizesAsked } from "../../search/bed-sizes.js";
import { categoryHeads, isPackaging, readName } from "../../search/product-type.js";
import { type Sex, sexesOf } from "../../search/sexes.js";
import { speciesIn } from "../../search/species.js";
import { variantsFromJsonLd } from "../variants.js";
import { childWords, colours, lexiconWords, materials, valuesIn } from "./lexicon.js";

export interface Attributes {
  kind: string | null;
  /** women, men, unisex, girls, boys, kids or baby (en/audience-suits.txt); null when neither name nor category says. */
  audience: string | null;
  ageFromMonths: number | null;
  ageToMonths: number | null;
  species: string[];
  size: string | null;
  colours: string[];
  materials: string[];
}

export interface AttributeSource {
  name: string;
  /** The page's address: its path's one-word segments may name the shop's department ("/women/"). */
  url?: string | undefined;
  desc?: string | null | undefined;
  category?: string | null | undefined;
  rawData?: { jsons?: { ld_json?: unknown } | null } | null | undefined;
}

/** Children's ages end at 13 (a teen's clothes are sized as adults'); a baby's at 3, as shops label "baby & toddler". */
const CHILD_UNTIL_MONTHS = 13 * 12;
const BABY_UNTIL_MONTHS = 36;
/** Months past this are no bound a smallint column needs to hold (unbounded ages are stored as null). */
const MONTHS_MAX = 32_767;

type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === "object" && value !== null && !Array.isArray(value);

/** The JSON-LD node describing the product (itself, or the first Product or ProductGroup in its @graph). */
function productNode(ldJson: unknown): JsonRecord | undefined {
  const nodes = Array.isArray(ldJson) ? ldJson : isRecord(ldJson) && Array.isArray(ldJson["@graph"]) ? ldJson["@graph"] : [ldJson];
  return nodes.filter(isRecord).find((node) => /Product/.test(String(node["@type"] ?? "")));
}

/** The texts a JSON-LD property states (`"Red"`, `["Red", "Blue"]`, `{"name": "Red"}`). */
function stated(node: JsonRecord | undefined, property: string): string[] {
  const value = node?.[property];
  return (Array.isArray(value) ? value : [value]).flatMap((item) =>
    typeof item === "string" ? [item] : isRecord(item) && typeof item.name === "string" ? [item.name] : [],
  );
}

/** Whom a product is made for: its sexes (sexes.ts) and whether its words or ages make it a child's or a baby's. */
function audienceOf(sexes: ReadonlySet<Sex>, child: readonly string[], ages: AgeRange | null): string | null {
  const baby = child.includes("baby") || (ages !== null && ages.to <= BABY_UNTIL_MONTHS);
  // Ages for grown-ups (a name for men or women: ages.ts) outweigh a child's word: "Mens Beastie Boys T-Shirt".
  const grown = ages !== null && ages.from >= CHILD_UNTIL_MONTHS;
  const young = !grown && (baby || child.includes("kids") || (ages !== null && ages.to <= CHILD_UNTIL_MONTHS));
  const only = sexes.size === 1 ? [...sexes][0] : undefined;
  if (young) {
    if (only === "female") return "girls";
    if (only === "male") return "boys";
    return baby ? "baby" : "kids";
  }
  if (only === "female") return "women";
  if (only === "male") return "men";
  return sexes.size === 2 ? "unisex" : null;
}

/** A name's qualifiers: what follows its first comma ("…, Men's, Storm Grey"), where names state colours. */
function qualifiers(name: string): string {
  const comma = name.indexOf(",");
  return comma < 0 ? "" : name.slice(comma + 1);
}

/** The one-word segments of a page's path, lower-cased: where a shop names its department ("/ie/en/women/…"), never a slug. */
function departmentsOf(url: string | undefined): string[] {
  if (!url) return [];
  try {
    return new URL(url).pathname
      .split("/")
      .map((segment) => decodeURIComponent(segment).toLowerCase())
      .filter((segment) => /^\p{L}+$/u.test(segment));
  } catch {
    return [];
  }
}

/** The kind a name says (not how it is sold: a "Duvet Cover Set" is a cover), else the category's. */
function kindOf(name: string, category: string | null): string | null {
  const { kinds } = readName(name);
  return kinds.find((kind) => !isPackaging(kind)) ?? kinds[0] ?? categoryHeads(category)[0] ?? null;
}

export function deriveAttributes(source: AttributeSource): Attributes {
  const { name } = source;
  const category = source.category ?? null;
  const ld = source.rawData?.jsons?.ld_json;
  const node = productNode(ld);
  const options = variantsFromJsonLd(ld).flatMap((variant) => variant.options);
  const optionValues = (option: string) => options.filter((o) => o.name === option).map((o) => o.value);
  const ages = productAges(name, source.desc ?? "", category);
  const departments = departmentsOf(source.url);
  const child = valuesIn(childWords(), `${name} ${category ?? ""}`);
  const sizes = [...bedSizesAsked(`${name} ${category ?? ""}`)];
  const colourText = [qualifiers(name), ...stated(node, "color"), ...optionValues("Color")].join(", ");
  const materialText = [name, category ?? "", ...stated(node, "material"), ...optionValues("Material")].join(", ");
  const bound = (months: number) => (Number.isFinite(months) && months <= MONTHS_MAX ? months : null);
  return {
    kind: kindOf(name, category),
    audience: audienceOf(sexesOf(name, category, "", departments), child.length > 0 ? child : valuesIn(childWords(), departments.join(" ")), ages),
    ageFromMonths: ages ? bound(ages.from) : null,
    ageToMonths: ages ? bound(ages.to) : null,
    species: [...speciesIn(`${name} ${category ?? ""}`)].sort(),
    size: sizes.length === 1 ? sizes[0]! : null,
    colours: valuesIn(colours(), colourText),
    materials: valuesIn(materials(), materialText),
  };
}

/** Attribute words as a query writes them, lower-cased: a shopper's "gray" is the catalog's grey (lexicon.ts). */
export function colourOf(word: string): string | undefined {
  return colours().byWords.get(lexiconWords(word).join(" "));
}

export function materialOf(word: string): string | undefined {
  return materials().byWords.get(lexiconWords(word).join(" "));
}
