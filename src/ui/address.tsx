// A shipping address as a person writes it, from the address in the contract's field names
// (shippingAddressOf in orders.service.ts; the supplier document carries the same).
import { countryName } from "./format";

/** The fields of an address this shows, in the contract's names. */
type Address = {
  email: string | null;
  first_name: string;
  last_name: string;
  company_name: string | null;
  phone: string | null;
  address1: string;
  address2: string | null;
  city: string;
  postcode: string;
  state: string | null;
  country: string;
};

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
