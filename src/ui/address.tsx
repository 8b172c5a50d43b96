// A shipping address as a person writes it, from the address in the contract's field names
// (shippingAddressOf in orders.service.ts; the supplier document carries the same).
import type { shippingAddressOf } from "../orders/orders.service";
import { countryName } from "./format";

type Address = ReturnType<typeof shippingAddressOf>;

export function ShippingAddress({ address: a, withEmail = true }: { address: Address; withEmail?: boolean }) {
  const lines: (string | null)[] = [
    `${a.first_name} ${a.last_name}`,
    a.company_name,
    `${a.address1}${a.address2 ? ` ${a.address2}` : ""}`,
    `${a.postcode} ${a.city}${a.state ? `, ${a.state}` : ""}`,
    countryName(a.country),
    a.phone ? `Phone ${a.phone}` : null,
  ];
  return (
    <address>
      {lines
        .filter((l): l is string => !!l)
        .map((l, i) => (
          <>
            {i > 0 ? <br /> : null}
            {l}
          </>
        ))}
      {withEmail && a.email ? (
        <>
          <br />
          <a href={`mailto:${a.email}`}>{a.email}</a>
        </>
      ) : null}
    </address>
  );
}
