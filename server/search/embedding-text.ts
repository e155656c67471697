/** What the sentence encoder sees of a product: short on purpose, because encoding time grows with length. */
export function embeddingText(product: { name: string; brands: readonly string[] }): string {
  return [product.name, ...product.brands].join(" — ");
}
