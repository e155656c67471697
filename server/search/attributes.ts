/**
 * The attribute filters (`audience`, `colour`, `material`) and how a query's words ask for them. A product's
 * attributes are derived at import (catalog/attributes/derive.ts); here a request's values become the stored values
 * that pass, and the words of a query ("women's", "for my wife", "kids'", "red") become filters, but only for values
 * the catalog holds: the vocabulary comes from the catalog's own rows, so a new catalog teaches search its words.
 * Read from a query, a filter leaves out only products made for another audience or of another colour; one stating
 * none passes (docs/decisions/0005-attributes.md).
 */
import { sql } from "drizzle-orm";
import { AUDIENCES, type AppliedConstraint, type SearchParams } from "../../shared/schemas/index.js";
import { audienceSuits, childWords, colours, coloursAsked, lexiconWords, materials, matches, valuesIn } from "../catalog/attributes/lexicon.js";
import type { Database } from "../db/client.js";
import { productFacets } from "../db/schema.js";
import { RequestError } from "../errors.js";
import { askedAges } from "./ages.js";
import { sexesAsked } from "./sexes.js";

type AttributeParams = Pick<SearchParams, "audience" | "colour" | "material">;

/** Children's ages, as derive.ts reads them: a query asking for ages below 13 asks for kids, below 3 for a baby. */
const CHILD_UNTIL_MONTHS = 13 * 12;
const BABY_UNTIL_MONTHS = 36;

/** The stored audiences that suit `asked` (en/audience-suits.txt), which must name exactly the API's audiences. */
export function suitingAudiences(asked: readonly string[]): string[] {
  const suits = audienceSuits();
  const unknown = [...suits.keys()].filter((key) => !(AUDIENCES as readonly string[]).includes(key));
  if (unknown.length > 0 || suits.size !== AUDIENCES.length) {
    throw new Error(`en/audience-suits.txt: must name each of ${AUDIENCES.join(", ")} once${unknown.length ? `, not ${unknown.join(", ")}` : ""}`);
  }
  return [...new Set(asked.flatMap((audience) => suits.get(audience) ?? []))];
}

/** Each word's family in a lexicon; a word it does not know is a 400 naming the parameter and what it takes. */
function families(words: readonly string[], lexicon: ReturnType<typeof colours>, param: "colour" | "material"): string[] {
  return [
    ...new Set(
      words.map((word) => {
        const family = lexicon.byWords.get(lexiconWords(word).join(" "));
        if (family === undefined) {
          throw new RequestError(
            "invalid_parameter",
            `${param}: "${word}" is not a ${param} this catalog knows; use one of ${lexicon.values.join(", ")}.`,
            param,
          );
        }
        return family;
      }),
    ),
  ];
}

/** The attribute filters the parameters ask for (filters.ts `Filters`). */
export function attributeFilters(params: AttributeParams): { audiences?: string[]; colours?: string[]; materials?: string[] } {
  return {
    ...(params.audience ? { audiences: suitingAudiences(params.audience) } : {}),
    ...(params.colour ? { colours: families(params.colour, colours(), "colour") } : {}),
    ...(params.material ? { materials: families(params.material, materials(), "material") } : {}),
  };
}

/** The attribute values the catalog holds (products not gone): what a query's words may be read as. */
export interface HeldAttributes {
  audiences: ReadonlySet<string>;
  colours: ReadonlySet<string>;
}

export async function heldAttributes(db: Database): Promise<HeldAttributes> {
  const f = productFacets;
  const rows = await db.select({ kind: sql<string>`kind`, value: sql<string>`value` }).from(
    sql`(select distinct 'audience' as kind, ${f.audience} as value from ${f} where ${f.audience} is not null and ${f.goneAt} is null
          union select distinct 'colour', unnest(${f.colours}) from ${f} where ${f.goneAt} is null) as held`,
  );
  const of = (kind: string) => new Set(rows.filter((row) => row.kind === kind).map((row) => row.value));
  return { audiences: of("audience"), colours: of("colour") };
}

export interface AttributeReading {
  adds: AttributeParams;
  applied: AppliedConstraint[];
  notApplied: (AppliedConstraint & { reason: string })[];
}

/** Whom a query asks for: by its sexes (sexes.ts) and whether its words or ages name children; undefined when neither. */
function audienceAsked(q: string): { audience: string; text: string } | undefined {
  const sexes = sexesAsked(q);
  const child = valuesIn(childWords(), q);
  const ages = askedAges(q);
  const young = child.length > 0 || (ages !== null && ages.to <= CHILD_UNTIL_MONTHS);
  // Not young, the sex is read as an adult's only where a word names an adult: "for my daughter" may be a child.
  const grown = young ? sexes : sexesAsked(q, { adults: true });
  const only = grown.size === 1 ? [...grown][0] : undefined;
  const baby = (child.length === 1 && child[0] === "baby") || (child.length === 0 && ages !== null && ages.to <= BABY_UNTIL_MONTHS);
  const bySex = only && (young ? { female: "girls", male: "boys" } : { female: "women", male: "men" })[only];
  const audience = bySex || (young ? (baby ? "baby" : "kids") : undefined);
  if (!audience) return undefined;
  // The words that named it, as written ("women's", "for my wife" shows "wife").
  const named = (q.match(/[\p{L}\p{N}'’]+/gu) ?? []).filter((word) => sexesAsked(word).size > 0 || valuesIn(childWords(), word).length > 0);
  return { audience, text: named.join(" ") || ages?.text || q };
}

/**
 * The audience and colours a query's words ask for, as filters, when the catalog holds a value that suits them.
 * The words stay searched: they are words of names too ("Women's", "Cherry Red"). A parameter given wins.
 */
export function readAttributes(q: string, params: AttributeParams, held: HeldAttributes): AttributeReading {
  const reading: AttributeReading = { adds: {}, applied: [], notApplied: [] };
  const asked = audienceAsked(q);
  if (asked && suitingAudiences([asked.audience]).some((value) => held.audiences.has(value))) {
    const shown = { filter: "audience", value: asked.audience, text: asked.text };
    if (params.audience) reading.notApplied.push({ ...shown, reason: "audience was given" });
    else {
      reading.adds.audience = [asked.audience as (typeof AUDIENCES)[number]];
      reading.applied.push(shown);
    }
  }
  const words = lexiconWords(q);
  for (const match of matches(coloursAsked(), words)) {
    if (!held.colours.has(match.value) || reading.adds.colour?.includes(match.value)) continue;
    const shown = { filter: "colour", value: match.value, text: words.slice(match.index, match.index + match.length).join(" ") };
    if (params.colour) reading.notApplied.push({ ...shown, reason: "colour was given" });
    else {
      reading.adds.colour = [...(reading.adds.colour ?? []), match.value];
      reading.applied.push(shown);
    }
  }
  return reading;
}
