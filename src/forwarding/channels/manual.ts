// The manual channel: nothing is sent. The shop places the order with the supplier itself and marks
// the lines completed (POST .../complete); a cancellation request is shown to the supplier in its portal.
import { z } from "zod";
import type { Channel } from "./channel";

export const manual: Channel = {
  name: "manual",
  label: "Manual",
  summary: "Nothing is sent: you pass the order on yourself and complete its lines by hand.",
  settings: z.object({}),
  sentAs: "by hand",
  addressName: "address",
  signs: true,
  delivered: () => "Successfully sent to supplier",
  destination: () => null,
  starts: "manual",
  address: () => null,
  send: async () => ({ outcome: "delivered", detail: "shown to the supplier (manual)" }),
};
