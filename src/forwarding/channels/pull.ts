// The pull channel: nothing is sent. A dispatch waits, awaiting pickup, for the supplier to fetch it
// (GET /api/v1/supplier/orders, the portal) and acknowledge it; a cancellation request is shown there.
import { z } from "zod";
import type { Channel } from "./channel";

export const pull: Channel = {
  name: "pull",
  label: "Pull",
  summary: "The supplier fetches its orders in its portal or through the API, with a supplier key.",
  settings: z.object({}),
  sentAs: "for pickup",
  addressName: "address",
  signs: true,
  delivered: () => "Successfully sent to supplier",
  destination: () => null,
  starts: "awaiting_pickup",
  address: () => null,
  send: async () => ({ outcome: "delivered", detail: "shown to the supplier (pull)" }),
};
