// The manual channel: nothing is sent. The shop places the order with the supplier itself and marks
// the lines completed (POST .../complete); a cancellation request is shown to the supplier in its portal.
import type { Channel } from "./channel";

export const manual: Channel = {
  starts: "manual",
  address: () => null,
  send: async () => ({ outcome: "delivered", detail: "shown to the supplier (manual)" }),
};
