/**
 * The extractor's heuristic rules, by name. Reading what schema.org, Open
 * Graph and the page-state formats define is not a rule here: it follows the
 * formats. A rule is a judgement about pages in general (where a visible price
 * sits, when a button outweighs markup, what a URL's last segment means), and
 * each one may be switched off so that the benchmark can check, site by site,
 * that every rule is supported by pages of other sites (`npm run
 * bench:extract`, docs/extraction.md). Every rule is on in the product.
 */

export const RULES = {
  "offers.lowest_buyable": "among several offers, the lowest one a shopper can buy now, not the lowest of all",
  "ld_json.same_name_in_stock": "products of the same name (one per size or colour) are in stock when any of them is",
  "sku.label_beats_markup": 'a SKU labelled for shoppers ("Item no.: …") beats the markup\'s, often an internal variant id',
  "sku.from_url": "the id in the page's URL is the SKU when nothing else states one",
  "mpn.not_the_sku": "an MPN equal to the SKU is the shop's SKU copied, not a manufacturer's number",
  "visible.price_near_buy_button": "the price nearest the buy button",
  "visible.price_near_title": "the price nearest the product's title",
  "visible.price_labelled": 'a price opened by a word for it ("Price:", "Preis:", "售價") by the buy button or the title',
  "visible.price_in_description": 'the price the page\'s description states ("… for €41.30"), when the page shows no price element',
  "visible.price_anywhere": "the first price-looking text outside header, navigation and footer",
  "visible.stock_wording":
    "what the page says about stock: an element named for stock saying in or out of stock, or out-of-stock wording by a buy button that cannot be used",
  "visible.enabled_button_in_stock": "an enabled buy button means in stock",
  "visible.labelled_identifiers": 'identifiers and brand after a label ("SKU: …", "Brand: …")',
  "visible.named_sku_element": "an element named for the SKU holding just a code",
  "visible.brand_element": "an element named for the brand (class or id `brand`), its text or its logo's alt text",
  "visible.brand_byline": 'the brand in a byline under the title ("Visit the Acme Store", "by Acme")',
  page_state: "the framework state a page ships (Next.js, Nuxt, Redux, Shopify JSON), searched for the product",
} as const;

export type Rule = keyof typeof RULES;

export const RULE_NAMES = Object.keys(RULES) as Rule[];

/** Which rules apply; the product applies all of them. */
export interface RuleSet {
  on(rule: Rule): boolean;
}

export const ALL_RULES: RuleSet = { on: () => true };

export function rulesWithout(disabled: Iterable<Rule>): RuleSet {
  const off = new Set(disabled);
  return off.size === 0 ? ALL_RULES : { on: (rule) => !off.has(rule) };
}
