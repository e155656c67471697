export * from "./schemas/index.js";
export * from "./url.js";
export * from "./client.js";
