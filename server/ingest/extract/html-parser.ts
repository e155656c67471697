/**
 * htmlparser2, bounded. Its parser keeps the open elements in an array it unshifts at every open tag and searches
 * at every close tag, so a page of unclosed tags costs time quadratic in its depth (400 KB of `<div>`: 4–7 s).
 * Here an open tag past HTML_MAX_DEPTH open elements is dropped as the tokenizer hands it over, before the parser
 * pays for it: its text stays, in the deepest element kept. And the HTML is written in chunks, so that an
 * extraction's budget is checked while the parser works.
 */
import type { QuoteType } from "htmlparser2";
import { DomHandler, type Handler, Parser, type ParserOptions } from "htmlparser2";
import { HTML_MAX_DEPTH } from "../limits.js";
import { type Budget, UNBOUNDED } from "./budget.js";

/** Characters written to the parser between two looks at the budget (a few ms of parsing). */
const CHUNK = 64 * 1024;

/** A handler that knows how many elements are open: the parser reports each it opens and closes (`onopentag`, `onclosetag`). */
export interface DepthHandler extends Partial<Handler> {
  readonly open: number;
}

/** The DOM handler, which keeps its open elements (and the document) on a stack already. */
export class BoundedDomHandler extends DomHandler implements DepthHandler {
  get open(): number {
    return this.tagStack.length - 1;
  }
}

/**
 * The parser with the tokenizer's events for an open tag (its name, attributes and end) ignored while `maxDepth`
 * elements are open. A subclass overriding only those, rather than a wrapper around every event: parsing stays
 * as fast as htmlparser2's own.
 */
class BoundedParser extends Parser {
  private droppingTag = false;

  constructor(
    private readonly depth: DepthHandler,
    options: ParserOptions,
    private readonly maxDepth: number,
  ) {
    super(depth, options);
  }

  override onopentagname(start: number, endIndex: number): void {
    this.droppingTag = this.depth.open >= this.maxDepth;
    if (!this.droppingTag) super.onopentagname(start, endIndex);
  }
  override onattribname(start: number, endIndex: number): void {
    if (!this.droppingTag) super.onattribname(start, endIndex);
  }
  override onattribdata(start: number, endIndex: number): void {
    if (!this.droppingTag) super.onattribdata(start, endIndex);
  }
  override onattribentity(codepoint: number): void {
    if (!this.droppingTag) super.onattribentity(codepoint);
  }
  override onattribend(quote: QuoteType, endIndex: number): void {
    if (!this.droppingTag) super.onattribend(quote, endIndex);
  }
  override onopentagend(endIndex: number): void {
    if (this.droppingTag) this.droppingTag = false;
    else super.onopentagend(endIndex);
  }
  override onselfclosingtag(endIndex: number): void {
    if (this.droppingTag) this.droppingTag = false;
    else super.onselfclosingtag(endIndex);
  }
}

/** Parses `html` into `handler`, dropping open tags past `maxDepth` open elements and checking `budget` as it goes. */
export function parseBounded(
  html: string,
  handler: DepthHandler,
  options: ParserOptions,
  budget: Budget = UNBOUNDED,
  maxDepth = HTML_MAX_DEPTH,
): void {
  const parser = new BoundedParser(handler, options, maxDepth);
  for (let at = 0; at < html.length; at += CHUNK) {
    parser.write(html.slice(at, at + CHUNK));
    budget.check();
  }
  parser.end();
}
