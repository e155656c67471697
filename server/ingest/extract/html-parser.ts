/**
 * htmlparser2, bounded. Its parser keeps the open elements in an array it unshifts at every open tag and searches
 * at every close tag, so a page of unclosed tags costs time quadratic in its depth (400 KB of `<div>`: 4–7 s).
 * Here an open tag past HTML_MAX_DEPTH open elements is dropped between the tokenizer and the parser, before the
 * parser pays for it: its text stays, in the deepest element kept. And the HTML is written in chunks, so that an
 * extraction's budget is checked while the parser works.
 */
import { type Handler, Parser, type ParserOptions, Tokenizer, type TokenizerCallbacks } from "htmlparser2";
import { HTML_MAX_DEPTH } from "../limits.js";
import { type Budget, UNBOUNDED } from "./budget.js";

/** Characters written to the parser between two looks at the budget (a few ms of parsing). */
const CHUNK = 64 * 1024;

/** Parses `html` into `handler`, dropping open tags past `maxDepth` open elements and checking `budget` as it goes. */
export function parseBounded(
  html: string,
  handler: Partial<Handler>,
  options: ParserOptions,
  budget: Budget = UNBOUNDED,
  maxDepth = HTML_MAX_DEPTH,
): void {
  let open = 0;
  const counted: Partial<Handler> = {
    ...forwarding(handler),
    // The parser names every element it pushes (and every void one, closed at once), and closes each it pops.
    onopentagname(name) {
      open++;
      handler.onopentagname?.(name);
    },
    onclosetag(name, implied) {
      open--;
      handler.onclosetag?.(name, implied);
    },
  };
  const gated: GatedOptions = { ...options, full: () => open >= maxDepth, Tokenizer: GatedTokenizer };
  const parser = new Parser(counted, gated);
  for (let at = 0; at < html.length; at += CHUNK) {
    parser.write(html.slice(at, at + CHUNK));
    budget.check();
  }
  parser.end();
}

interface GatedOptions extends ParserOptions {
  /** Whether the parser holds as many open elements as it may. */
  full: () => boolean;
}

/**
 * The tokenizer, its events to the parser gated. One class for every parse: a class made per parse gave the
 * tokenizer's hot code a new shape each time, which V8 stops optimising (parsing took 4× as long).
 */
class GatedTokenizerClass extends Tokenizer {
  constructor(options: GatedOptions, parser: TokenizerCallbacks) {
    super(options, gate(parser, options.full));
  }
}
// The parser constructs its tokenizer with the options it was given, which carry `full`: the narrower parameter holds.
const GatedTokenizer = GatedTokenizerClass as typeof Tokenizer;

/** Every handler event passed on as it is (the parser tests which events a handler has, so each is defined). */
function forwarding(handler: Partial<Handler>): Partial<Handler> {
  return {
    onparserinit: (parser) => handler.onparserinit?.(parser),
    onreset: () => handler.onreset?.(),
    onend: () => handler.onend?.(),
    onerror: (error) => handler.onerror?.(error),
    ...(handler.onattribute ? { onattribute: (name, value, quote) => handler.onattribute?.(name, value, quote) } : {}),
    ...(handler.onopentag ? { onopentag: (name, attribs, implied) => handler.onopentag?.(name, attribs, implied) } : {}),
    ontext: (data) => handler.ontext?.(data),
    oncomment: (data) => handler.oncomment?.(data),
    oncdatastart: () => handler.oncdatastart?.(),
    oncdataend: () => handler.oncdataend?.(),
    oncommentend: () => handler.oncommentend?.(),
    onprocessinginstruction: (name, data) => handler.onprocessinginstruction?.(name, data),
  };
}

/** The tokenizer's events for the parser, without an open tag (name, attributes, end) while `full()` says so. */
function gate(parser: TokenizerCallbacks, full: () => boolean): TokenizerCallbacks {
  let dropping = false;
  return {
    onopentagname(start, endIndex) {
      dropping = full();
      if (!dropping) parser.onopentagname(start, endIndex);
    },
    onattribname: (start, endIndex) => dropping || parser.onattribname(start, endIndex),
    onattribdata: (start, endIndex) => dropping || parser.onattribdata(start, endIndex),
    onattribentity: (codepoint) => dropping || parser.onattribentity(codepoint),
    onattribend: (quote, endIndex) => dropping || parser.onattribend(quote, endIndex),
    onopentagend(endIndex) {
      if (dropping) dropping = false;
      else parser.onopentagend(endIndex);
    },
    onselfclosingtag(endIndex) {
      if (dropping) dropping = false;
      else parser.onselfclosingtag(endIndex);
    },
    oncdata: (start, endIndex, offset) => parser.oncdata(start, endIndex, offset),
    onclosetag: (start, endIndex) => parser.onclosetag(start, endIndex),
    oncomment: (start, endIndex, offset) => parser.oncomment(start, endIndex, offset),
    ondeclaration: (start, endIndex) => parser.ondeclaration(start, endIndex),
    onend: () => parser.onend(),
    onprocessinginstruction: (start, endIndex) => parser.onprocessinginstruction(start, endIndex),
    ontext: (start, endIndex) => parser.ontext(start, endIndex),
    ontextentity: (codepoint, endIndex) => parser.ontextentity(codepoint, endIndex),
    isInForeignContext: () => parser.isInForeignContext?.() ?? false,
  };
}
