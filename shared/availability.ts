/**
 * The availability names records carry and the groups a shopper filters on: plain constants, without Zod, so that
 * the search page's script (web/search) can import them without bundling the schemas.
 */
/** schema.org's ItemAvailability names, as records carry them. */
export const AVAILABILITIES = [
  "InStock",
  "OutOfStock",
  "PreOrder",
  "BackOrder",
  "Discontinued",
  "InStoreOnly",
  "LimitedAvailability",
  "OnlineOnly",
  "SoldOut",
  "PreSale",
  "MadeToOrder",
  "Reserved",
] as const;
export type Availability = (typeof AVAILABILITIES)[number];

/** What a shopper filters on, and the schema.org states each takes in. */
export const AVAILABILITY_GROUPS = {
  in_stock: ["InStock", "LimitedAvailability", "InStoreOnly", "OnlineOnly"],
  out_of_stock: ["OutOfStock", "SoldOut", "Discontinued"],
  preorder: ["PreOrder", "PreSale"],
  backorder: ["BackOrder", "MadeToOrder"],
} as const satisfies Record<string, readonly Availability[]>;
export const AVAILABILITY_FILTERS = Object.keys(AVAILABILITY_GROUPS) as (keyof typeof AVAILABILITY_GROUPS)[];
export type AvailabilityFilter = keyof typeof AVAILABILITY_GROUPS;
