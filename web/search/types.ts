/**
 * The answers' types as the typed client gives them (the router's declaration: shared/router.d.ts), which is what
 * the page receives; Zod's inferred types differ from them in which unknown fields are optional.
 */
import type { CatalogClient } from "../../shared/client.js";

export type SearchAnswer = Awaited<ReturnType<CatalogClient["products"]["search"]["query"]>>;
export type Hit = SearchAnswer["products"][number];
export type PageRecord = Hit["pdp"];
export type WholeRecord = Extract<PageRecord, { desc: string }>;
export type Facets = NonNullable<SearchAnswer["facets"]>;
export type Interpretation = NonNullable<SearchAnswer["interpretation"]>;
export type AppliedConstraint = Interpretation["applied"][number];
export type Message = NonNullable<SearchAnswer["messages"]>[number];
