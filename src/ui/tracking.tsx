// A shipment as a person reads it: quantity, carrier, and the tracking number linking to the
// carrier's page (only an http(s) address becomes a link; anything else a supplier typed stays text).
import { LocalTime } from "./time";

export type ShipmentView = { quantity: number; carrier: string | null; trackingNumber: string | null; trackingUrl: string | null; createdAt: string };

export function ShipmentText({ shipment: s }: { shipment: ShipmentView }) {
  return (
    <>
      {s.quantity} via {s.carrier ?? "unknown carrier"}
      {s.trackingNumber ? (
        <>
          {" "}
          · tracking{" "}
          {s.trackingUrl && /^https?:\/\//i.test(s.trackingUrl) ? (
            <a href={s.trackingUrl} rel="noopener noreferrer" target="_blank">
              {s.trackingNumber}
            </a>
          ) : (
            s.trackingNumber
          )}
        </>
      ) : null}{" "}
      · <LocalTime iso={s.createdAt} />
    </>
  );
}
