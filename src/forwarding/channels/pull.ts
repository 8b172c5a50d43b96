// The pull channel: nothing is sent. A dispatch waits, awaiting pickup, for the supplier to fetch it
// (GET /api/v1/supplier/orders, the portal) and acknowledge it; a cancellation request is shown there.
import type { Channel } from "./channel";

export const pull: Channel = {
  starts: "awaiting_pickup",
  address: () => null,
  send: async () => ({ outcome: "delivered", detail: "shown to the supplier (pull)" }),
};
