/**
 * A catalog with structured offers, identifiers and categories, written for
 * the filter, sort, facet, cursor and lookup tests (issue 13): three
 * merchants, three currencies, every availability group, GTINs in UPC-A and
 * EAN-13 form, a SKU two merchants share.
 */
import type { TestRecord } from "./catalog.js";

interface Row {
  slug: string;
  name: string;
  desc: string;
  category: string;
  price: string;
  availability: string;
  was?: string;
  gtin?: string;
  sku?: string;
}

const MERCHANTS = {
  northpeak: { host: "https://www.northpeak.example/products/", brand: "NorthPeak", currency: "USD", symbol: (p: string) => `$${p}` },
  copperleaf: {
    host: "https://copperleafkitchen.example/en/p/",
    brand: "Copperleaf Kitchen",
    currency: "EUR",
    symbol: (p: string) => `${p.replace(".", ",")} €`,
  },
  halden: { host: "https://shop.haldenaudio.example/products/", brand: "Halden Audio", currency: "GBP", symbol: (p: string) => `£${p}` },
} as const;

const ROWS: Record<keyof typeof MERCHANTS, Row[]> = {
  northpeak: [
    {
      slug: "alpine-2-tent",
      name: "Alpine 2 Backpacking Tent",
      desc: "A two-person, three-season tent with aluminium poles.",
      category: "Outdoor > Tents",
      price: "349.00",
      availability: "InStock",
      gtin: "012345678905",
      sku: "NP-1001",
    },
    {
      slug: "ridge-1-tent",
      name: "Ridge 1 Solo Tent",
      desc: "An ultralight one-person tent for fast trips.",
      category: "Outdoor > Tents",
      price: "199.00",
      availability: "OutOfStock",
      sku: "NP-1002",
    },
    {
      slug: "basecamp-4-tent",
      name: "Basecamp 4 Family Tent",
      desc: "A roomy four-person tent for car camping.",
      category: "Outdoor > Tents",
      price: "459.00",
      availability: "PreOrder",
      sku: "NP-1003",
    },
    {
      slug: "stormline-shell",
      name: "Stormline 3L Rain Shell",
      desc: "A waterproof, breathable hiking jacket with taped seams.",
      category: "Clothing > Jackets > Rain Jackets",
      price: "229.00",
      was: "279.00",
      availability: "InStock",
      sku: "NP-2001",
    },
    {
      slug: "summit-down-jacket",
      name: "Summit Down Jacket",
      desc: "An 800-fill down jacket for cold belays.",
      category: "Clothing > Jackets > Insulated Jackets",
      price: "329.00",
      availability: "LimitedAvailability",
      sku: "NP-2002",
    },
    {
      slug: "trail-gaiters",
      name: "Trail Gaiters",
      desc: "Waterproof gaiters that keep grit and snow out of your boots.",
      category: "Shoes > Accessories",
      price: "39.00",
      availability: "InStock",
      sku: "SHARED-1",
    },
    {
      slug: "camp-mug",
      name: "Enamel Camp Mug",
      desc: "A steel mug with an enamel finish for camp coffee.",
      category: "Outdoor > Camp Kitchen",
      price: "14.00",
      availability: "BackOrder",
      sku: "NP-3001",
    },
    {
      slug: "hard-cooler",
      name: "Rotomolded Hard Cooler 45 L",
      desc: "Keeps drinks cold for five days on a camping trip.",
      category: "Outdoor > Camp Kitchen",
      price: "249.00",
      availability: "InStock",
      sku: "NP-3002",
    },
  ],
  copperleaf: [
    {
      slug: "cast-iron-skillet-26",
      name: "Cast Iron Skillet 26 cm",
      desc: "Pre-seasoned cast iron frying pan for searing and baking.",
      category: "Kitchen > Cookware > Pans",
      price: "49.90",
      availability: "InStock",
      gtin: "4006381333931",
      sku: "CK-100",
    },
    {
      slug: "stainless-saucepan-2l",
      name: "Stainless Steel Saucepan 2 L",
      desc: "Tri-ply saucepan with a glass lid; induction ready.",
      category: "Kitchen > Cookware > Saucepans",
      price: "39.90",
      availability: "InStock",
      sku: "CK-200",
    },
    {
      slug: "copper-kettle",
      name: "Copper Stovetop Kettle",
      desc: "A whistling copper kettle that boils 1.5 L of water.",
      category: "Kitchen > Kettles",
      price: "89.00",
      was: "109.00",
      availability: "OutOfStock",
      sku: "SHARED-1",
    },
    {
      slug: "chef-knife",
      name: "Chef's Knife 20 cm",
      desc: "A forged stainless chef's knife.",
      category: "Kitchen > Knives",
      price: "129.00",
      availability: "InStock",
      sku: "CK-400",
    },
  ],
  halden: [
    {
      slug: "studio-headphones",
      name: "Studio Over-Ear Headphones",
      desc: "Closed-back wired headphones for mixing and monitoring.",
      category: "Audio > Headphones",
      price: "149.00",
      availability: "InStock",
      gtin: "5012345678900",
      sku: "HA-1",
    },
    {
      slug: "travel-earbuds",
      name: "Travel Wireless Earbuds",
      desc: "Noise-cancelling wireless earbuds with a charging case.",
      category: "Audio > Earbuds",
      price: "99.00",
      availability: "InStock",
      sku: "HA-2",
    },
    {
      slug: "bookshelf-speakers",
      name: "Bookshelf Speakers, Pair",
      desc: "Passive two-way bookshelf speakers in walnut.",
      category: "Audio > Speakers",
      price: "399.00",
      availability: "Discontinued",
      sku: "HA-3",
    },
  ],
};

export const STRUCTURED: TestRecord[] = Object.entries(ROWS).flatMap(([key, rows]) => {
  const merchant = MERCHANTS[key as keyof typeof MERCHANTS];
  return rows.map((row) => ({
    url: `${merchant.host}${row.slug}`,
    name: row.name,
    desc: row.desc,
    brands: [merchant.brand],
    price_label: merchant.symbol(row.price),
    category: row.category,
    offers: { price: row.price, currency: merchant.currency, availability: row.availability, ...(row.was ? { was_price: row.was } : {}) },
    identifiers: { sku: row.sku ?? null, gtin: row.gtin ?? null, mpn: null },
  }));
});

/** The URL of the fixture product with this slug. */
export function urlOf(slug: string): string {
  const record = STRUCTURED.find((r) => r.url.endsWith(`/${slug}`));
  if (!record) throw new Error(`no fixture product ${slug}`);
  return record.url;
}
