// Which items of the shop's order a shipment ships, and how many of each: every shipped line found
// among the shop's items (platform.ts, itemFor), two lines on one item added up (a plugin may send
// one product twice). A line the shop's order does not have is refused in words: guessing another
// item would ship the wrong thing.
import { ShopError } from "./http";
import { itemFor, type ShipmentWrite, type ShopItem, type ShopOrder } from "./platform";

export function shippedItems(shopOrder: ShopOrder, write: ShipmentWrite): { item: ShopItem; quantity: number }[] {
  const byItem = new Map<string, { item: ShopItem; quantity: number }>();
  for (const { line, quantity } of write.lines) {
    const item = itemFor(shopOrder.items, line);
    if (!item) {
      const sku = line.sku ? ` or SKU ${line.sku}` : "";
      throw new ShopError("invalid", `The shop's order ${shopOrder.number} has no item with product id ${line.productId}${sku} (our line "${line.name}" of order ${write.order.reference}): nothing was written`);
    }
    const entry = byItem.get(item.id) ?? { item, quantity: 0 };
    entry.quantity += quantity;
    byItem.set(item.id, entry);
  }
  return [...byItem.values()];
}
