/**
 * How sure the extractor is of a field: a prior for the layer (or the rule
 * within it) that gave the value, raised when other layers state the same
 * value independently and lowered when another states a different one and
 * none agrees. The priors are set by hand from how each layer is produced
 * (markup a shop's platform writes for search engines is rarely wrong about
 * its own product; a price-looking text near a button sometimes is); `npm run
 * bench:extract` prints how often fields at each confidence were right on
 * pages of sites held out, which is what keeps these numbers honest.
 */
import type { How, LayerName } from "./candidate.js";

const LAYER_PRIOR: Record<LayerName, number> = {
  ld_json: 0.9,
  microdata: 0.85,
  rdfa: 0.85,
  opengraph: 0.8,
  page_state: 0.75,
  visible: 0.6,
};

/** Rules whose findings are weaker or stronger than their layer's plain statement. */
const RULE_PRIOR: Partial<Record<How, number>> = {
  itemprop: 0.7,
  "visible.labelled_identifiers": 0.7,
  "visible.price_near_buy_button": 0.65,
  "visible.stock_wording": 0.65,
  "visible.brand_byline": 0.6,
  "visible.enabled_button_in_stock": 0.6,
  "visible.price_near_title": 0.55,
  "visible.price_labelled": 0.55,
  "visible.brand_element": 0.55,
  "visible.named_sku_element": 0.5,
  shared_symbol: 0.45,
  "sku.from_url": 0.4,
  "visible.price_anywhere": 0.4,
  "visible.price_in_description": 0.4,
};

/**
 * `agreeing`: other layers stating the same value; `disagreeing`: other layers stating another.
 * Each agreeing layer halves the remaining doubt; disagreement with no support takes a quarter off.
 */
export function confidenceOf(layer: LayerName, rule: How | undefined, agreeing: number, disagreeing: number): number {
  let confidence = (rule === undefined ? undefined : RULE_PRIOR[rule]) ?? LAYER_PRIOR[layer];
  for (let i = 0; i < agreeing; i++) confidence = 1 - (1 - confidence) / 2;
  if (agreeing === 0 && disagreeing > 0) confidence *= 0.75;
  return Math.round(Math.min(confidence, 0.99) * 100) / 100;
}
