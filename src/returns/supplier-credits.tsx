// The supplier page's "Credits for returns" (placed by src/suppliers/suppliers.pages.tsx): what the
// supplier credited per month and currency over the last 12 months (./credits.service.ts), with a
// link to its returns.
import { count } from "../lib/plural";
import { money } from "../ui/format";
import type { MonthlyCredit } from "./credits.service";

const MONTH = new Intl.DateTimeFormat("en", { month: "long", year: "numeric", timeZone: "UTC" });
const monthName = (month: string) => MONTH.format(new Date(`${month}-01T00:00:00Z`));

export function SupplierCredits({ supplierId, name, credits }: { supplierId: number; name: string; credits: MonthlyCredit[] }) {
  return (
    <section aria-labelledby="credits-heading" id="credits">
      <h2 id="credits-heading">Credits for returns</h2>
      {credits.length === 0 ? (
        <p class="muted">{name} has credited no returns in the last 12 months.</p>
      ) : (
        <div class="table-wrap" role="region" aria-label={`Credits of ${name} per month`} tabindex={0}>
          <table class="striped">
            <caption class="visually-hidden">{`Credits of ${name} per month, the last 12 months, newest first`}</caption>
            <thead>
              <tr>
                <th scope="col">Month</th>
                <th scope="col" class="numeric">Returns credited</th>
                <th scope="col" class="numeric">Credited</th>
              </tr>
            </thead>
            <tbody>
              {credits.map((c) => (
                <tr>
                  <td>{monthName(c.month)}</td>
                  <td class="numeric">{count(c.returns, "return")}</td>
                  <td class="numeric">{money(c.amount, c.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p>
        <a href={`/console/returns?status=all&supplier_id=${supplierId}`}>All returns to {name}</a>
      </p>
    </section>
  );
}
