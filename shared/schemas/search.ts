/** What search and batch lookup answer, beyond the records themselves. */
import { z } from "zod";
import { FACETS } from "./params.js";
import { GtinOffersSchema } from "./offers.js";
import { PRODUCT_EXAMPLE, ProductRecordSchema } from "./product.js";

export const MESSAGE_CODES = [
  "currency_only",
  "converted",
  "filter_not_applied",
  "end_of_relevance",
  "sort_without_price",
  "none_available",
  "unmatched_words",
  "weak_matches",
] as const;

export const MessageSchema = z
  .object({
    code: z.enum(MESSAGE_CODES).describe("Stable: branch on it."),
    text: z.string().describe("For people (and models): what happened and what to do about it."),
    query: z
      .string()
      .optional()
      .describe(
        "With `unmatched_words`: the query's words without those no product holds, which match products when searched with the same filters (those read from `q` are in `interpretation.applied`).",
      ),
  })
  .meta({ id: "Message" });

export const ExplainSchema = z
  .object({
    matched: z.object({
      fields: z.array(z.enum(["name", "brands", "desc", "category"])).describe("Where the query's words (stemmed) occur."),
      words: z.array(z.string()).describe("The query's words that occur, as the shopper wrote them."),
    }),
    scores: z.object({
      lexical: z.number().nullable().describe("Full-text rank (ts_rank over name, brands, description); null when no word matched."),
      semantic: z.number().nullable().describe("Cosine similarity of query and product embeddings; null when not computed."),
      rerank: z.number().nullable().describe("The reranker's score; null when the reranker gives none."),
    }),
    filters: z.array(z.string()).describe("The filters the product passed, as `name=value`."),
  })
  .meta({ id: "Explain" });

export const SearchHitSchema = z
  .object({ pdp: ProductRecordSchema, explain: ExplainSchema.optional().describe("With `explain=true`: why this product matched.") })
  .meta({ id: "SearchHit" });

const count = z.int().min(0).meta({ format: "int32" });
export const FacetValueSchema = z.object({ value: z.string(), count });
export const PriceBucketSchema = z.object({
  currency: z.string(),
  min: z.string().describe("Lowest price in the bucket (decimal, inclusive)."),
  max: z.string().nullable().describe("Highest price (decimal, exclusive); null for the open top bucket."),
  count,
});

export const FacetsSchema = z
  .object({
    brand: z.array(FacetValueSchema).optional(),
    category: z.array(FacetValueSchema).optional().describe("Counts per category path and per each of its ancestors."),
    availability: z.array(FacetValueSchema).optional().describe("Counts per schema.org availability name."),
    price: z.array(PriceBucketSchema).optional().describe("Counts per price bucket, per currency."),
    audience: z.array(FacetValueSchema).optional().describe("Counts per audience (women, men, unisex, girls, boys, kids, baby)."),
    colour: z.array(FacetValueSchema).optional().describe("Counts per colour family; a product of two colours counts for each."),
    material: z.array(FacetValueSchema).optional().describe("Counts per material family; a product of two materials counts for each."),
  })
  .describe(`Counts over the whole matched set, for the facets asked (${FACETS.join(", ")}).`)
  .meta({ id: "Facets" });

export const AppliedConstraintSchema = z.object({
  filter: z.string().describe("The parameter it acts as, e.g. `price_max`, `availability`, `brand`."),
  value: z.string(),
  text: z.string().describe("The words of `q` it was read from."),
});

/**
 * The parsed query: what the analyser makes of `q`, read by every later stage of a search. The rules fill it; a
 * language model, where one is configured (QUERY_ANALYSER=model), fills the part it reads better in the same shape.
 */
export const ParsedQuerySchema = z
  .object({
    query: z.string(),
    language: z
      .string()
      .nullable()
      .describe(
        "The query's language (ISO 639-1): as the rules detect it (search/languages/detect.ts), or as the model read it; null when its words are in no language the service knows.",
      ),
    searched: z.string().describe("The words left to search once the constraints are read out."),
    also: z.array(z.string()).describe("Other names for what is asked (a model's paraphrases and translations), searched beside it."),
    words: z.array(
      z.object({
        text: z.string(),
        forms: z.array(z.object({ kind: z.enum(["typed", "correction", "synonym", "translation"]), words: z.string(), notes: z.array(z.string()) })),
      }),
    ),
    constraints: z.array(z.object({ filter: z.string(), value: z.string(), text: z.string(), reason: z.string().optional() })),
    kind: z.string().nullable().describe("The kind of product asked for."),
    sexes: z.array(z.string()),
    ages: z.object({ text: z.string(), fromMonths: z.number(), toMonths: z.number().nullable() }).nullable(),
    species: z.array(z.string()),
    bedSizes: z.array(z.string()),
    goesWith: z.array(z.object({ from: z.string(), to: z.array(z.string()) })),
    notWanted: z.array(z.string()),
  })
  .meta({ id: "ParsedQuery" });

export const InterpretationSchema = z
  .object({
    query: z
      .string()
      .describe('What was searched once the constraints, and words that only ask for it ("help me find a", "please"), were taken out of `q`.'),
    applied: z.array(AppliedConstraintSchema).describe("Constraints read from `q` and applied as filters."),
    not_applied: z
      .array(AppliedConstraintSchema.extend({ reason: z.string() }))
      .optional()
      .describe("Constraints read from `q` but not applied (an explicit parameter said otherwise, or something was missing)."),
    corrections: z
      .array(
        z.object({
          from: z
            .string()
            .describe("A word of `q` the catalog does not hold or holds rarely, or two neighbouring words it writes as one (lower-cased)."),
          to: z.string().describe("What was searched as well: the closest catalog word, the two words joined, or the word split in two."),
        }),
      )
      .optional()
      .describe(
        "Typos corrected to the catalog's closest words, words joined or split as the catalog writes them (`typos=false` turns this off); the words as typed are searched too.",
      ),
    synonyms: z
      .array(
        z.object({
          from: z.string().describe("Words of `q` (after any correction), lower-cased."),
          to: z.array(z.string()).describe("What was searched beside them (or instead, for a one-way mapping that does not keep them)."),
        }),
      )
      .optional()
      .describe("Synonyms applied: the built-in set for shopping English and the operator's SYNONYMS_FILE."),
    goes_with: z
      .array(
        z.object({
          from: z
            .string()
            .describe('A word of `q` after "for" or "on" naming what the product is for ("sofa" in "something cosy for the sofa"), lower-cased.'),
          to: z.array(z.string()).describe("Kinds of product that go with it, searched beside it."),
        }),
      )
      .optional()
      .describe(
        'Kinds of product that go with what the query says the product is for, from a built-in list (throws and cushions for a sofa). They rank as the kind asked only when the query names no kind the catalog sells; "cushion for the sofa" still asks for cushions.',
      ),
    ages: z
      .object({
        text: z.string().describe('The words of `q` they were read from ("toddlers", "1 year old").'),
        from_months: z.int32().min(0).meta({ format: "int32" }).describe("The youngest age asked, in months."),
        to_months: z.int32().min(1).meta({ format: "int32" }).describe("The age asked for no more, in months (excluded)."),
      })
      .optional()
      .describe(
        'The ages the query shops for. Products whose descriptions state ages that leave them all out ("for children aged 3 to 6" for toddlers) rank after the others; none is left out for it.',
      ),
    avoided: z
      .array(
        z.object({
          word: z.string().describe("The word not wanted, lower-cased; it is not searched."),
          text: z.string().describe('The words of `q` it was read from ("not wireless", "without a hood").'),
        }),
      )
      .optional()
      .describe(
        'Words the query asks to be without. Products whose names hold them rank after the others, and those saying they are free of them ("caffeine-free") first; none is left out for it (a page may name what a product is without: `-word` or `exclude` leave out every product holding the word).',
      ),
    analyser: z
      .enum(["rules", "model", "rules_fallback"])
      .optional()
      .describe(
        "With a language model configured (QUERY_ANALYSER=model): who read the query — `model`, or `rules_fallback` when the model failed or timed out and the rules' reading was used.",
      ),
    parsed: ParsedQuerySchema.optional().describe("With `explain=true`: the parsed query every stage of the search read."),
    language: z
      .object({
        query: z.string().nullable().describe("The query's language (ISO 639-1), or null when its words are in no language the service knows."),
        catalog: z.string().describe("The catalog's language: the commonest language of its products."),
      })
      .optional()
      .describe("Present when the query was read in another language than the catalog's, or in none known."),
    translations: z
      .array(
        z.object({
          from: z.string().describe("Words of `q` in the query's language, lower-cased."),
          to: z.array(z.string()).describe("What they were searched as, in the catalog's language."),
        }),
      )
      .optional()
      .describe(
        "Words of a query in another language than the catalog's, read in the catalog's through the built-in lexicons; the words as typed are searched too.",
      ),
    not_read: z
      .array(z.string())
      .optional()
      .describe(
        "Words of `q` that were not read: in another language than the catalog's and in no lexicon, or in a language not known. They were searched as typed, not guessed.",
      ),
  })
  .meta({ id: "Interpretation" });

export const SearchResponseSchema = z
  .object({
    products: z
      .array(SearchHitSchema)
      .describe("Best match first (or in `sort` order); only products that match, so possibly fewer than `limit`, or none."),
    next_cursor: z.string().optional().describe("Present when there is more: pass it as `cursor` for the next page."),
    facets: FacetsSchema.optional(),
    interpretation: InterpretationSchema.optional().describe(
      "Present when constraints were read from `q`, or a typo corrected, a synonym applied, ages or unwanted words read.",
    ),
    messages: z
      .array(MessageSchema)
      .optional()
      .describe("What the caller should know about this answer (e.g. a filter that matched only one currency)."),
  })
  .meta({ id: "SearchResponse", examples: [{ products: [{ pdp: PRODUCT_EXAMPLE }] }] });

export const LOOKUP_MATCHES = ["id", "url", "url_normalized", "gtin", "gtin14", "sku"] as const;

export const LookupResultSchema = z
  .object({
    input: z.record(z.string(), z.string()).describe("The lookup as it was asked."),
    pdp: ProductRecordSchema.nullable(),
    match: z
      .enum(LOOKUP_MATCHES)
      .optional()
      .describe(
        "How it was found: `id`; `url` (as stored) or `url_normalized` (after normalising); `gtin` (the same digits) or `gtin14` (another form of the same GTIN); `sku`.",
      ),
    reason: z
      .enum(["not_found", "ambiguous", "gone"])
      .optional()
      .describe(
        "Why `pdp` is null: nothing matched, several products did (give `brand_url`), or the product's page was withdrawn (`gone`, see `gone_at`).",
      ),
    gone_at: z.string().optional().describe("With `reason: gone`: when the product's page was found withdrawn (404 or 410), ISO 8601."),
    offers: GtinOffersSchema.optional().describe(
      "With a `gtin` input only, whatever `pdp` is (also when it is null as `ambiguous`: several merchants' records carry that GTIN): every merchant's offer of the product that GTIN names, in stock first, then cheapest; empty when no record there carries it.",
    ),
  })
  .meta({ id: "LookupResult" });

export const BatchLookupResponseSchema = z
  .object({ results: z.array(LookupResultSchema).describe("One per input, in the order asked.") })
  .meta({ id: "BatchLookupResponse", examples: [{ results: [{ input: { sku: "NP-10037" }, pdp: PRODUCT_EXAMPLE, match: "sku" }] }] });

export type Message = z.infer<typeof MessageSchema>;
export type Explain = z.infer<typeof ExplainSchema>;
export type SearchHit = z.infer<typeof SearchHitSchema>;
export type Facets = z.infer<typeof FacetsSchema>;
export type Interpretation = z.infer<typeof InterpretationSchema>;
export type AppliedConstraint = z.infer<typeof AppliedConstraintSchema>;
export type ParsedQuery = z.infer<typeof ParsedQuerySchema>;
export type SearchResponse = z.infer<typeof SearchResponseSchema>;
export type LookupResult = z.infer<typeof LookupResultSchema>;
export type BatchLookupResponse = z.infer<typeof BatchLookupResponseSchema>;
