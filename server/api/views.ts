/**
 * How much of a record an answer holds (`view`): `compact` for agents that pay
 * per token, `standard` (the record as the seed defines it), `full` (with raw
 * data). Presentation only: services return whole products.
 */
import type { CompactProduct, Product, ProductRecord, View } from "../../shared/schemas/index.js";

/** The view asked for: `view`, else `full` when `include_raw_data` is set, else the operation's default. */
export function viewOf(params: { view?: View | undefined; include_raw_data: boolean }): View {
  return params.view ?? (params.include_raw_data ? "full" : "standard");
}

/** Whether the view needs raw data read. */
export function needsRawData(view: View): boolean {
  return view === "full";
}

const compacts = new WeakMap<Product, CompactProduct>();

/** The compact record of a product, made once per product object (the product cache hands out the same one). */
function compactOf(product: Product): CompactProduct {
  let compact = compacts.get(product);
  if (!compact) {
    compact = {
      id: product.id,
      url: product.url,
      name: product.name,
      brand: product.brands[0] ?? null,
      price_label: product.price_label,
      price: product.offers?.price ?? null,
      currency: product.offers?.currency ?? null,
      availability: product.offers?.availability ?? null,
      image: product.media.find((media) => media.type === "image")?.url ?? null,
      checked_at: product.checked_at,
      product_group: product.product_group,
    };
    compacts.set(product, compact);
  }
  return compact;
}

export function present(product: Product, view: View): ProductRecord {
  return view === "compact" ? compactOf(product) : product;
}
