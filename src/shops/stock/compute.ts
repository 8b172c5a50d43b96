// What a product's stock (and price) in the shop should be, from the catalogue's offers: plain
// functions of the offers and the connection's settings, so each rule is tested on its own.
import { MONEY_UNITS } from "../../lib/money";
import type { PriceSyncSettings, StockSyncSettings, SyncGuards } from "../platforms/settings";

/** One active offer of an active supplier (a product row of one of its active feeds). */
export type Offer = {
  productId: number;
  stockQuantity: number | null;
  /** Ten-thousandths (src/lib/money.ts); null when the feed gives none. */
  purchasePrice: number | null;
  supplierId: number;
  supplierPriority: number;
};

/** What is to be written for one product; quantity null: leave the shop's stock as it is. */
export type Target = { quantity: number | null; price: number | null };

/** Suppliers by priority (lower first), then by id: the order routing breaks ties in. */
const byPriority = (a: Offer, b: Offer) => a.supplierPriority - b.supplierPriority || a.supplierId - b.supplierId || a.productId - b.productId;

/** The stock from the offers by the rule, less the buffer, never below 0; null when no offer and `without_offer` is leave. */
export function quantityOf(offers: Offer[], settings: StockSyncSettings): number | null {
  if (offers.length === 0) return settings.without_offer === "zero" ? 0 : null;
  const stocks = offers.map((o) => Math.max(0, o.stockQuantity ?? 0));
  let quantity: number;
  if (settings.quantity === "sum") quantity = stocks.reduce((a, b) => a + b, 0);
  else if (settings.quantity === "max") quantity = Math.max(...stocks);
  else quantity = Math.max(0, [...offers].sort(byPriority)[0].stockQuantity ?? 0);
  return Math.max(0, quantity - settings.buffer);
}

/**
 * The shop's price: the purchase price of the offer routing would pick (the cheapest in stock,
 * else the cheapest; ties by supplier priority), plus the markup, in whole cents, then raised to
 * the next price ending in round_to. Null when price sync is off or no offer has a price.
 */
export function priceOf(offers: Offer[], settings: PriceSyncSettings | undefined): number | null {
  if (!settings?.enabled) return null;
  const offer = pricedOffer(offers);
  if (!offer) return null;
  // In cents from here: integer arithmetic, rounded half up once.
  const CENT = MONEY_UNITS / 100;
  const markupBasisPoints = Math.round(settings.markup_percent * 100);
  let cents = Math.round((offer.purchasePrice! * (10_000 + markupBasisPoints)) / 10_000 / CENT);
  if (settings.round_to !== null) {
    const ending = Math.round(settings.round_to * 100);
    cents = Math.ceil((cents - ending) / 100) * 100 + ending;
    if (cents < ending) cents = ending;
  }
  return cents * CENT;
}

/** The offer whose purchase price the shop's price is made from: the cheapest in stock, else the cheapest; null when none has a price. */
export function pricedOffer(offers: Offer[]): (Offer & { purchasePrice: number }) | null {
  const priced = offers.filter((o): o is Offer & { purchasePrice: number } => o.purchasePrice !== null);
  if (priced.length === 0) return null;
  const cheapest = (list: (Offer & { purchasePrice: number })[]) => [...list].sort((a, b) => a.purchasePrice - b.purchasePrice || byPriority(a, b))[0];
  const inStock = priced.filter((o) => (o.stockQuantity ?? 0) > 0);
  return cheapest(inStock.length > 0 ? inStock : priced);
}

/** Whole hundredths of a percent (basis points) of a percentage given with at most two decimals. */
const basisPoints = (percent: number) => BigInt(Math.round(percent * 100));

/**
 * Why this price may not be written (under the minimum price, or under the purchase price plus the
 * minimum margin), in words; null when it may. Exact: integer units and basis points.
 */
export function underMinimum(price: number | null, purchasePrice: number | null, guards: SyncGuards | undefined): string | null {
  if (price === null || !guards) return null;
  if (guards.min_price !== null) {
    const min = Math.round(guards.min_price * 100) * (MONEY_UNITS / 100);
    if (price < min) return `The price ${priceText(price)} is under the minimum price ${priceText(min)}: not written.`;
  }
  if (guards.min_margin_percent !== null && purchasePrice !== null) {
    // price ≥ purchase × (1 + margin): in basis points, price × 10,000 ≥ purchase × (10,000 + bp).
    if (BigInt(price) * 10_000n < BigInt(purchasePrice) * (10_000n + basisPoints(guards.min_margin_percent))) {
      return `The price ${priceText(price)} is under the purchase price ${priceText(purchasePrice)} plus the minimum margin of ${guards.min_margin_percent}%: not written.`;
    }
  }
  return null;
}

/** Whether a price falls from `before` to `after` by more than max_drop_percent (exactly at it is allowed). */
export function dropsTooFar(before: number | null, after: number | null, maxDropPercent: number | null): boolean {
  if (before === null || after === null || maxDropPercent === null || before <= 0 || after >= before) return false;
  // (before − after) / before > p / 100, in basis points: (before − after) × 10,000 > before × bp.
  return BigInt(before - after) * 10_000n > BigInt(before) * basisPoints(maxDropPercent);
}

/** Whether `changed` of `mapped` products is more than max_changed_percent of them (exactly at it is allowed). */
export function changesTooMany(changed: number, mapped: number, maxChangedPercent: number | null): boolean {
  if (maxChangedPercent === null || changed === 0) return false;
  return BigInt(changed) * 10_000n > BigInt(mapped) * basisPoints(maxChangedPercent);
}

/** A price in ten-thousandths as the shop's decimal text, two decimals ("12.99"). */
export function priceText(units: number): string {
  const cents = Math.round(units / (MONEY_UNITS / 100));
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
}
