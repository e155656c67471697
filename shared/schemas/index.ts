export * from "./product.js";
export * from "./params.js";
export * from "./problem.js";
export * from "./health.js";
export * from "./search.js";
export * from "./changes.js";
export * from "./ucp.js";
export * from "./offers.js";
