/**
 * The default reranker: no network, a few milliseconds. It rescores the fused
 * candidates with what retrieval alone cannot weigh together, reading each of
 * the query's words in all its forms (as typed, corrected, or a synonym; see
 * understand.ts), a typed word counting more than the others:
 *
 * - BM25F over the stemmed words of name, brands and description (Postgres's
 *   own tsvectors, with document frequencies from the catalog), so rare words
 *   count more and the name counts most;
 * - how much of the query the name covers, and how much the product covers
 *   anywhere (the description counts where the name is silent: a rain shell
 *   whose description says "waterproof" and "hiking"), whether query words
 *   appear side by side in the name (phrases, numbers with units: "16 gb"),
 *   and whether the name holds the whole query in its order ("Tea Cup with
 *   Saucer" for "tea cup saucer");
 * - whether the name holds the query's last word, and whether the product is
 *   of the kind the query asks for: the head of its name or category against
 *   the query's head word (product-type.ts), so a jacket beats waterproof
 *   gaiters for "waterproof jacket"; without a category, the query's head word
 *   anywhere in the name counts too;
 * - whether the product is only an accessory of what was asked for ("case
 *   *for* iPhone" for "iphone");
 * - whether its description states ages that leave out those the query asks
 *   for (ages.ts: the 3-to-6 play kitchen for "toys for toddlers"), and
 *   whether its name is for the other sex than the query names (sexes.ts);
 * - the sentence-encoder similarity of query and product.
 *
 * This module computes the features; ranking.ts weighs them and applies the
 * relevance floor. Weights were tuned on the dev queries of bench/relevance.ts
 * and the sample-catalog set of bench/sample-queries.json only.
 */
import { inArray, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { products } from "../../db/schema.js";
import type { Product } from "../../../shared/schemas/index.js";
import { LruCache } from "../../cache.js";
import { lexemeQuery, parseTsvector, wordsIn } from "../lexical.js";
import { type AgeRange, excludes, productAges } from "../ages.js";
import { otherSex, sexesAsked, sexesOf } from "../sexes.js";
import { otherSpecies, speciesIn } from "../species.js";
import { bedSizesAsked, otherBedSize } from "../bed-sizes.js";
import { isEnglishWord, MEANT_STOP_WORDS } from "../common-words.js";
import {
  categoryHeads,
  describesUse,
  describesWhom,
  isPackaging,
  isQuantity,
  isVague,
  isWhom,
  purposeAfter,
  queryHead,
  readName,
} from "../product-type.js";
import type { Reranker, RerankContext, RerankResult } from "../reranker.js";
import { vectorLiteral } from "../retrieve.js";
import { catalogSizeEvery } from "../catalog-size.js";
import { CATEGORY_SEPARATOR, categoryKey } from "../../catalog/structured.js";
import { wordFrequenciesOf } from "../statistics.js";
import { type Form, literalPlan, type QueryPlan } from "../understand.js";
import { DEFAULT_WEIGHTS, type LocalWeights, rankScored, type Scored, takingTurns } from "./ranking.js";
import { countsOf, type Document, features, freeOf, toDocument } from "./local-features.js";
import { type Clause, markers, type Query, type StemmedForm, writtenOf } from "./local-query.js";

/**
 * Letters of the Latin script. The local sentence encoder's vocabulary is English: it reads a page with no such letter
 * as it reads any word it does not know, so gibberish is as similar to a Chinese page (0.55-0.59) as words are to a
 * page they describe. Its similarity between a query written in Latin letters and such a page is no evidence.
 */
const LATIN = /\p{Script=Latin}/u;

/** Whether the ages a product suits (productAges: what its text states, a name for grown-ups, a stage named) leave out every age asked. */
function excludesAges(candidate: Product, asked: AgeRange): boolean {
  const stated = productAges(candidate.name, candidate.desc, candidate.category ?? null);
  return stated !== null && excludes(stated, asked);
}

/**
 * 1 when every query word the name holds comes after "for"/"fits"/"compatible" ("Leather Case for iPhone 6"), or,
 * for a product whose category says what it is, after "with" ("Dollhouse with 18 Furniture Pieces" is no furniture),
 * and the query itself has no such word. Without a category "with" does not count: such names often sell the pair
 * ("Camera with Lens"), and the name is all there is to go by.
 */
function accessoryOf(query: string, name: string, categorised: boolean): number {
  const { accessory, companion } = markers();
  const marking = categorised ? companion : accessory;
  const asked = wordsIn(query);
  if (asked.some((word) => marking.has(word))) return 0;
  const tokens = wordsIn(name);
  const marker = tokens.findIndex((token) => marking.has(token));
  if (marker < 0) return 0;
  const stems = new Set(asked.filter((word) => word.length > 2).map((word) => word.slice(0, 4)));
  const hits = tokens.flatMap((token, index) => (stems.has(token.slice(0, 4)) ? [index] : []));
  return hits.length > 0 && hits.every((index) => index > marker) ? 1 : 0;
}

export interface LocalRerankerDeps {
  db: Database;
  weights?: LocalWeights;
  /** The catalog's size, and the table of document frequencies, are read again after an import at most this often. */
  statsTtlMs?: number;
  clock?: () => number;
}

/** Texts whose stems are kept (query words, candidates' categories and kinds), a few hundred bytes each. */
const STEMMED_TEXTS = 20_000;

/** Between a language and a text in a key of the stems' cache: no text holds it (Postgres text cannot hold NUL). */
const STEM_KEY = "\u0000";
const stemKey = (language: string, text: string) => `${language}${STEM_KEY}${text.replaceAll(STEM_KEY, " ")}`;

/** How often the statistics check whether an import changed the catalog. */
const STATS_CHECK_MS = 5_000;

export function createLocalReranker(deps: LocalRerankerDeps): Reranker & { scoreCandidates: typeof scoreCandidates } {
  const { db } = deps;
  const weights = deps.weights ?? DEFAULT_WEIGHTS;
  const ttl = deps.statsTtlMs ?? 10 * 60_000;
  const now = deps.clock ?? (() => performance.now());
  const table = wordFrequenciesOf(db, { checkMs: STATS_CHECK_MS, minAgeMs: ttl, now });
  /** Words a partial table leaves out (catalogs with more than MAX_LEXEMES words), counted on demand. */
  const counted = new LruCache<string, number>(50_000, { ttlMs: ttl, now });
  const catalogSize = catalogSizeEvery(db, ttl, now);
  const stemCache = new LruCache<string, string[]>(STEMMED_TEXTS);

  /** The document frequencies of every word of the catalog, read once (see statistics.ts), and its size. */
  async function warm(): Promise<void> {
    await Promise.all([table(), catalogSize()]);
  }

  /** Document frequencies of the lexemes, from the table or, for those a partial table lacks, one query for all. */
  async function documentFrequencies(lexemes: readonly string[]): Promise<Map<string, number>> {
    const known = await table();
    const frequencies = new Map<string, number>();
    const missing: string[] = [];
    for (const lexeme of lexemes) {
      const cached = known.frequency(lexeme) ?? counted.get(lexeme);
      if (cached === undefined) missing.push(lexeme);
      else frequencies.set(lexeme, cached);
    }
    if (missing.length > 0) {
      const counts = Object.fromEntries(
        missing.map((lexeme, i) => [
          `n${i}`,
          sql<number>`count(*) filter (where ${products.search} @@ ${lexemeQuery(lexeme)}::tsquery)`.mapWith(Number),
        ]),
      );
      // One index scan over the union of the lexemes, counted per lexeme.
      const [row] = await db
        .select(counts)
        .from(products)
        .where(sql`${products.search} @@ ${missing.map(lexemeQuery).join(" | ")}::tsquery`);
      missing.forEach((lexeme, i) => {
        const n = row?.[`n${i}`] ?? 0;
        counted.set(lexeme, n);
        frequencies.set(lexeme, n);
      });
    }
    return frequencies;
  }

  /**
   * Lexemes of each text in a language (its text-search configuration, as the stored documents are read; keys are
   * `stemKey(language, text)`): from memory for texts seen before (categories and kinds recur across searches, and a
   * text's stems never change), the rest in one query.
   */
  async function stems(keys: readonly string[]): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    for (const key of keys) {
      const cached = stemCache.get(key);
      if (cached) found.set(key, cached);
    }
    const unknown = [...new Set(keys.filter((key) => !found.has(key)))];
    if (unknown.length > 0) {
      const list = (part: 0 | 1) =>
        sql.join(
          unknown.map((key) => sql`${key.split(STEM_KEY)[part]!}`),
          sql`, `,
        );
      const [row] = await db
        .select({ stems: sql<string[] | null>`array_agg(to_tsvector(search_config(l), t)::text order by i)` })
        .from(sql`unnest(array[${list(1)}]::text[], array[${list(0)}]::text[]) with ordinality as u(t, l, i)`);
      const vectors = row?.stems ?? [];
      unknown.forEach((key, i) => {
        const lexemes = parseTsvector(vectors[i] ?? "")
          .sort((a, b) => a.position - b.position)
          .map((term) => term.lexeme);
        found.set(key, lexemes);
        stemCache.set(key, lexemes);
      });
    }
    return found;
  }

  /**
   * The plan's words with their stemmed forms and weights; words with no lexemes in any form (stop words) are left out.
   * `stemmed` reads a text in the catalog's language, `readings` in each of the plan's (a form of a query in another
   * language is held as its own language's stems, or the catalog's).
   */
  async function queryOf(
    plan: QueryPlan,
    stemmed: ReadonlyMap<string, string[]>,
    readings: (words: readonly string[]) => string[][],
  ): Promise<Query> {
    const lexemes = (words: readonly string[]) => [...new Set(stemmed.get(words.join(" ")) ?? [])];
    // What goes with a target word is no form of it: it only answers for it (Clause's `fits`).
    const searched = plan.forms.filter((form) => !form.goesWith);
    const all = [...new Set(searched.flatMap((form) => readings(form.words).flat()))];
    const n = await catalogSize();
    const frequencies = await documentFrequencies(all);
    const idfOf = (frequency: number) => Math.log(1 + (n - frequency + 0.5) / (frequency + 0.5));
    const idf = (lexeme: string) => idfOf(frequencies.get(lexeme) ?? 0);
    type Word = Omit<Clause, "sort" | "sold" | "target" | "before" | "fits"> & { heldAnywhere: boolean };
    const held = (form: { lexemes: readonly string[] }) => form.lexemes.every((lexeme) => (frequencies.get(lexeme) ?? 0) > 0);
    // Each compound form some product holds, with its word and side; one no product holds ("jacket-for") says nothing
    // of the stop word in it.
    const heldCompounds = new Map<Form, NonNullable<StemmedForm["compound"]>>();
    for (const form of searched) {
      if (!form.compound) continue;
      const found = lexemes(form.words);
      const lexeme = found.find((l) => !l.includes("-"));
      if (lexeme !== undefined && held({ lexemes: found }))
        heldCompounds.set(form, { lexeme, stopBefore: lexemes([plan.words[form.start]!]).length === 0 });
    }
    const byWord = plan.words.map((_, i): Word[] => {
      const forms = searched
        .filter((form) => form.start <= i && i < form.end)
        .flatMap((form) => {
          const compound = heldCompounds.get(form);
          return form.compound && compound === undefined
            ? []
            : readings(form.words).map((found) => ({
                lexemes: found,
                words: form.words,
                weight: form.kind === "typed" || form.kind === "translation" || form.either ? 1 : weights.forms[form.kind],
                kind: form.kind,
                written: form.prefix ? undefined : writtenOf(form.words, found),
                prefix: form.prefix === true,
                apart: form.apart === true,
                compound,
                alternative: form.alternative === true,
              }));
        });
      if (forms.length === 0) {
        // A stop word the query means ("*down* jacket") is read as written; it weighs as set below (`meantIdf`).
        const word = plan.words[i]!;
        return MEANT_STOP_WORDS.has(word)
          ? [{ forms: [{ lexemes: [word], weight: 1, corrected: false, unindexed: true }], idf: 0, heldAnywhere: true, alsoRead: false }]
          : [];
      }
      // The word's weight in the query: as typed when the catalog holds it, else its commonest form the catalog holds.
      const typed = forms.find((form) => form.kind === "typed" && held(form));
      const weighed = typed ? [typed] : forms.filter(held);
      const only = weighed.length === 1 ? weighed[0]! : undefined;
      // A word the catalog holds only as two English words it splits into ("waterbottle") is scored as those two typed
      // apart: each a word of its own, the last naming the kind ("water bottle"), wherever each stands in the product.
      if (only?.apart && only.lexemes.length === only.words.length) {
        return only.lexemes.map((lexeme, k) => {
          const written = writtenOf([only.words[k]!], [lexeme]);
          return {
            forms: [{ lexemes: [lexeme], weight: only.weight, corrected: true, word: only.words[k]!, ...(written && { written }) }],
            idf: idf(lexeme),
            heldAnywhere: true,
            alsoRead: false,
          };
        });
      }
      // A compound weighs as its word: the stop word beside it is no rarer a word than that ("Cables *To Go*" holds
      // "to go" as a "to-go" mug does, and weighed as rare as "to-go" it outweighed the mugs for "travel mug to go").
      const rarest = (form: (typeof forms)[number]) => (form.compound ? idf(form.compound.lexeme) : Math.max(...form.lexemes.map(idf)));
      const clauseIdf = weighed.length > 0 ? Math.min(...weighed.map(rarest)) : idfOf(0);
      return [
        {
          forms: forms.map(({ lexemes: l, words, weight, kind, written, prefix, compound }) => ({
            lexemes: l,
            weight,
            corrected: kind === "correction",
            ...(written && { written }),
            ...(prefix && { prefix }),
            ...(compound && { compound }),
            ...(words.length === 1 && { word: words[0]! }),
          })),
          idf: clauseIdf,
          heldAnywhere: weighed.length > 0,
          alsoRead: typed !== undefined && forms.some((form) => form.alternative),
        },
      ];
    });
    // A preposition in a compound before the word it qualifies ("*slip on* sneakers"); last, it may be the preposition
    // it reads as ("mug *to go*").
    const inCompound = (i: number) => [...heldCompounds.keys()].some((form) => form.start <= i && i < form.end && form.end < plan.words.length);
    // A word neither the catalog nor English has ("dutch *ovn*", too short to correct; a model code the catalog lacks)
    // names no kind anyone sells: the kind is read from the other words.
    const head = queryHead(
      plan.words,
      (i) => byWord[i]!.some((word) => word.heldAnywhere) || (byWord[i]!.length > 0 && isEnglishWord(plan.words[i]!)),
      inCompound,
    );
    const purpose = head === undefined ? undefined : purposeAfter(plan.words, head, inCompound);
    const vague = plan.words.map((_, i) => isVague(plan.words, i));
    const plain = byWord.flatMap((words, i) => (vague[i] ? [] : words.map((word) => word.idf)));
    const vagueIdf = plain.length > 0 ? weights.vague * Math.min(...plain) : undefined;
    // The index does not count a stop word's products: one the query means weighs as its commonest other word.
    const meant = (word: Word) => word.forms.some((form) => form.unindexed);
    const indexedIdf = byWord.flat().flatMap((word) => (meant(word) || !word.heldAnywhere ? [] : [word.idf]));
    const meantIdf = indexedIdf.length > 0 ? Math.min(...indexedIdf) : idfOf(0);
    // Whom it is for, in words no product holds ("gift for *dad*"), counts for nothing: no product says it suits a dad,
    // and weighed as the rarest of words it left the gift box under the floor.
    // Nor do the words saying which person ("gift for a *new* dad"): "New Zealand wool" put the rug first.
    const unsaid = (i: number) => (isWhom(plan.words, i) && !byWord[i]!.some((word) => word.heldAnywhere)) || describesWhom(plan.words, i);
    const clauses = byWord.flatMap((words, i): Clause[] =>
      words.map((word, k) => ({
        forms: word.forms,
        idf: unsaid(i) ? 0 : meant(word) ? meantIdf : vague[i] && vagueIdf !== undefined ? Math.min(word.idf, vagueIdf) : word.idf,
        // The first of a split head word is the sort of the kind its last names ("*water*bottle").
        sort: head !== undefined && (i < head || (i === head && k < words.length - 1)) && !isQuantity(plan.words, i),
        sold: head !== undefined && i > head && isPackaging(plan.words[i]!),
        target: purpose !== undefined && i > purpose,
        fits:
          purpose !== undefined && i > purpose
            ? plan.forms
                .filter((form) => form.goesWith && form.start === i)
                .map((form) => ({ lexemes: lexemes(form.words), weight: weights.forms.synonym, corrected: false }))
                .filter((form) => form.lexemes.length > 0)
            : [],
        before:
          head !== undefined &&
          i < head &&
          !isQuantity(plan.words, i) &&
          !plan.words.slice(i + 1, head).some((word) => markers().joinsKinds.has(word)),
        alsoRead: word.alsoRead,
      })),
    );
    return {
      clauses,
      head: head === undefined ? undefined : byWord.slice(0, head + 1).flat().length - 1,
      freeAsked: plan.words.includes("free"),
      use: describesUse(plan.words),
      headUnsold: head !== undefined && !byWord[head]!.some((word) => word.heldAnywhere) && isEnglishWord(plan.words[head]!),
    };
  }

  /** Per-candidate features, in candidate order. */
  async function scoreCandidates(query: string, candidates: readonly Product[], context: RerankContext = {}): Promise<Scored[]> {
    const plan = context.plan ?? literalPlan(query);
    const ids = candidates.map((c) => c.id);
    const known = context.similarities ?? new Map<string, number>();
    // Only candidates that vector retrieval did not rank need their similarity computed.
    const unknown = ids.filter((id) => !known.has(id));
    const vector = context.queryVector && unknown.length > 0 ? vectorLiteral(context.queryVector) : null;
    const rows = await db
      .select({
        id: products.id,
        doc: sql<string>`${products.search}::text`,
        lang: products.searchLang,
        cosine: vector
          ? sql<number>`case when ${inArray(products.id, unknown)} then 1 - (${products.embedding} <=> ${vector}) else 0 end`.mapWith(Number)
          : sql<number>`0`.mapWith(Number),
      })
      .from(products)
      .where(inArray(products.id, ids));
    // Every form of the query in each of its languages, and each candidate's kinds and category in the candidate's own
    // language, stemmed in one query.
    const named = candidates.map((candidate) => readName(candidate.name));
    const kinds = candidates.map((candidate, index) => [...named[index]!.kinds, ...categoryHeads(candidate.category)]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    const catalog = plan.languages.at(-1) ?? plan.language.catalog;
    const langOf = (candidate: Product) => byId.get(candidate.id)?.lang ?? catalog;
    const queryTexts = [...plan.forms.map((form) => form.words.join(" ")), ...plan.avoid];
    const found = await stems([
      ...plan.languages.flatMap((language) => queryTexts.map((text) => stemKey(language, text))),
      ...candidates.flatMap((candidate, index) => [...kinds[index]!, candidate.category ?? ""].map((text) => stemKey(langOf(candidate), text))),
    ]);
    const stemOf = (language: string, text: string) => found.get(stemKey(language, text)) ?? [];
    const stemmed = new Map(queryTexts.map((text) => [text, stemOf(catalog, text)]));
    // A form's distinct stems in the plan's languages, the catalog's first; one reading when they agree.
    const readings = (words: readonly string[]) => {
      const text = words.join(" ");
      const distinct = new Map([catalog, ...plan.languages].map((language) => [stemOf(language, text).join(" "), stemOf(language, text)]));
      return [...distinct.values()].map((lexemes) => [...new Set(lexemes)]).filter((lexemes) => lexemes.length > 0);
    };
    const parsed = await queryOf(plan, stemmed, readings);
    const readsWritten = parsed.clauses.some((clause) => clause.forms.some((form) => form.written !== undefined));
    const meantWords = parsed.clauses.flatMap((clause) => clause.forms.filter((form) => form.unindexed).map((form) => form.lexemes[0]!));
    const latinQuery = LATIN.test(query);
    const documents = candidates.map((candidate, index) => {
      const row = byId.get(candidate.id);
      const language = langOf(candidate);
      const document = toDocument(parseTsvector(row?.doc ?? ""), {
        category: new Set(stemOf(language, candidate.category ?? "")),
        kinds: new Set(kinds[index]!.flatMap((kind) => stemOf(language, kind))),
        // Read only when a query word has a `written` form (asWritten, ownWord); most queries have none.
        words: readsWritten ? new Set(wordsIn(`${candidate.name} ${candidate.brands.join(" ")} ${candidate.category ?? ""}`)) : new Set(),
        descWords: readsWritten ? new Set(wordsIn(candidate.desc)) : new Set(),
        unindexed: meantWords.length > 0 ? countsOf(meantWords, candidate) : new Map(),
      });
      // Field by field, so that a name with a Latin letter (nearly every one) settles it without copying the description.
      const unreadable =
        latinQuery && ![candidate.name, ...candidate.brands, candidate.category ?? "", candidate.desc].some((text) => LATIN.test(text));
      return { document, cosine: unreadable ? 0 : (known.get(candidate.id) ?? (row?.cosine || 0)) };
    });
    const averageLength = { name: 0, brands: 0, desc: 0 };
    for (const { document } of documents) {
      for (const field of ["name", "brands", "desc"] as const) averageLength[field] += document.length[field] / documents.length;
    }
    const avoided = plan.avoid.flatMap((word) => stemmed.get(word) ?? []);
    const sexes = sexesAsked(query);
    const animals = speciesIn(query);
    const bedSizes = bedSizesAsked(query);
    // The two alternatives a query joins by "or" (understand.ts pairs their forms), as stemmed: which one a product holds.
    const either = plan.forms.filter((form) => form.either).slice(0, 2);
    const sides = either.length === 2 ? [either[1]!, either[0]!].map((form) => stemmed.get(form.words.join(" ")) ?? []) : [];
    const sideOf = (document: Document) => {
      const holding = sides.flatMap((lexemes, side) => (lexemes.length > 0 && lexemes.every((lexeme) => document.terms.has(lexeme)) ? [side] : []));
      return holding.length === 1 ? holding[0] : undefined;
    };
    return documents.map(({ document, cosine }, index) => {
      const candidate = candidates[index]!;
      // Spelt as filters and facets spell categories, so "Outdoor" and " outdoor  " are one department.
      const department = categoryKey(candidate.category ?? "").split(CATEGORY_SEPARATOR)[0] || null;
      return {
        ...features(parsed, document, averageLength, cosine, weights),
        // Its name holds a word the shopper does not want ("Aria ANC *Wireless* Headphones" for "headphones not
        // wireless"); or, counting for it, it says it is free of one (the "Caffeine-free" rooibos for "tea without caffeine").
        avoided: avoided.some((lexeme) => (document.terms.get(lexeme)?.tf.name ?? 0) > 0)
          ? 1
          : plan.avoid.some((word) => freeOf(document, word) !== undefined)
            ? -1
            : 0,
        accessory: accessoryOf(query, candidate.name, department !== null),
        ages: plan.ages && excludesAges(candidate, plan.ages) ? 1 : 0,
        sex: otherSex(sexes, sexesOf(candidate.name, candidate.category, candidate.desc)) ? 1 : 0,
        bedSize: otherBedSize(bedSizes, candidate.name) ? 1 : 0,
        otherAnimal: otherSpecies(animals, candidate),
        side: sideOf(document),
        department,
      };
    });
  }

  return {
    name: "local",
    scoreCandidates,
    warm,
    close: () => table.settled(),
    async rerank(query, candidates, context): Promise<RerankResult> {
      if (candidates.length === 0) return { ids: [], outcome: "reranked" };
      // What a price or stock constraint left out is judged with the rest, so that the floor knows the kind asked is
      // sold: a running vest is no answer to "rain jacket under $100" (it was the best of what the price left).
      const beside = context?.beside ?? [];
      const judged = [...candidates, ...beside];
      const scored = await scoreCandidates(query, judged, context);
      const left = new Set(beside.map((product) => product.id));
      const order = takingTurns(
        rankScored(
          scored,
          judged.map((candidate) => candidate.id),
          weights,
        ).filter((item) => !left.has(item.id)),
      );
      return {
        ids: order.map((o) => o.id),
        outcome: "reranked",
        scores: new Map(order.map((o) => [o.id, o.score])),
        unrelated: new Set(order.filter((o) => o.unrelated).map((o) => o.id)),
        weak: order.some((o) => !o.unrelated) && order.every((o) => o.unrelated || o.weak),
      };
    },
  };
}
