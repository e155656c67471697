/**
 * How many retrievals one request may run: its search, and one more to choose the currency of a price order asked in
 * words, or to explain an empty first page (in that order of need: prices in other currencies, then how many the price
 * bounds or the availability filter left out, then the words no product holds). Each explanation costs a whole search,
 * so a request with several reasons to be empty says the first that fits.
 */
export const MAX_RETRIEVALS = 2;

export interface CurrencyCount {
  currency: string;
  count: number;
}

export class RetrievalBudget {
  #left = MAX_RETRIEVALS;
  /**
   * The products the words match with the price bounds and currency aside, per currency, once counted (by the price
   * order's search, or the search in other currencies): the empty answer's price note reads them again for free.
   */
  unpriced: CurrencyCount[] | undefined;

  /** Takes one retrieval; false when none is left. */
  spend(): boolean {
    if (this.#left === 0) return false;
    this.#left--;
    return true;
  }
}

/** Counts per currency, most first, then by code. */
export function byCount(counts: ReadonlyMap<string, number>): CurrencyCount[] {
  return [...counts].map(([currency, count]) => ({ currency, count })).sort((a, b) => b.count - a.count || (a.currency < b.currency ? -1 : 1));
}
