/**
 * The panel's placements (one row per product, store and week with its display location and mailer location,
 * "0" meaning none) summed to one figure per product and week: the share of the product's stores where it had
 * a display or a mailer ad that week. A product's stores are those that sold it to a panel household or list a
 * placement for it during the year.
 */
export class PromotionShares {
  private readonly promotedStores = new Map<number, Map<number, Set<number>>>();
  private readonly listedStores = new Map<number, Set<number>>();
  private readonly storesOf = new Map<number, number>();
  rows = 0;

  constructor(private readonly products: ReadonlySet<number>) {}

  addRow(productId: number, storeId: number, week: number, display: string, mailer: string): void {
    if (!this.products.has(productId)) return;
    this.rows += 1;
    let listed = this.listedStores.get(productId);
    if (!listed) {
      listed = new Set();
      this.listedStores.set(productId, listed);
    }
    listed.add(storeId);
    if (display === "0" && mailer === "0") return;
    let weeks = this.promotedStores.get(productId);
    if (!weeks) {
      weeks = new Map();
      this.promotedStores.set(productId, weeks);
    }
    let stores = weeks.get(week);
    if (!stores) {
      stores = new Set();
      weeks.set(week, stores);
    }
    stores.add(storeId);
  }

  /** The promoted share of `productId` in `week`, in [0, 1], rounded to 3 decimals. */
  share(productId: number, week: number, sellingStores: ReadonlySet<number>): number {
    const promoted = this.promotedStores.get(productId)?.get(week);
    if (!promoted || promoted.size === 0) return 0;
    let stores = this.storesOf.get(productId);
    if (stores === undefined) {
      stores = new Set([...sellingStores, ...(this.listedStores.get(productId) ?? [])]).size;
      this.storesOf.set(productId, stores);
    }
    return Math.round(Math.min(1, promoted.size / stores) * 1000) / 1000;
  }
}
