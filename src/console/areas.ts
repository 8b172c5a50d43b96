// The three signed-in areas of the browser face: where each lives, what its navigation offers.
import type { ConsoleRole } from "../db/schema";
import type { NavItem } from "../ui/layout";

export type Area = { role: ConsoleRole; path: string; name: string; home: string; nav: NavItem[] };

export const AREAS: Record<ConsoleRole, Area> = {
  shop: {
    role: "shop",
    path: "/console",
    name: "Shop console",
    home: "/console",
    nav: [
      { href: "/console", label: "Needs attention" },
      { href: "/console/orders", label: "Orders" },
      { href: "/console/returns", label: "Returns" },
      { href: "/console/suppliers", label: "Suppliers" },
      { href: "/console/rules", label: "Routing rules" },
      { href: "/console/catalogue", label: "Catalogue" },
      { href: "/console/webhooks", label: "Webhooks" },
      { href: "/console/shop-connections", label: "Shop connections" },
      { href: "/console/api-keys", label: "API keys" },
      { href: "/console/settings", label: "Settings" },
    ],
  },
  supplier: {
    role: "supplier",
    path: "/supplier",
    name: "Supplier portal",
    home: "/supplier",
    nav: [
      { href: "/supplier", label: "Open dispatches" },
      { href: "/supplier/cancellations", label: "Cancellation requests" },
      { href: "/supplier/returns", label: "Returns" },
      { href: "/supplier/history", label: "History" },
    ],
  },
  operator: {
    role: "operator",
    path: "/operator",
    name: "Operator",
    home: "/operator/accounts",
    nav: [
      { href: "/operator/accounts", label: "Accounts" },
      { href: "/operator/pipeline", label: "Pipeline" },
      { href: "/operator/parked-orders", label: "Parked orders" },
      { href: "/operator/dead-letters", label: "Dead letters" },
      { href: "/operator/webhook-deliveries", label: "Failing deliveries" },
    ],
  },
};

export const areaOfPath = (path: string): Area | undefined =>
  Object.values(AREAS).find((a) => path === a.path || path.startsWith(`${a.path}/`));

/** A `next` target after sign-in: only a path inside the same area (never another site). */
export function safeNext(area: Area, next: string | undefined): string {
  if (!next || !/^\/[\w\-./?=&%]*$/.test(next) || next.startsWith("//")) return area.home;
  return next === area.path || next.startsWith(`${area.path}/`) || next.startsWith(`${area.path}?`) ? next : area.home;
}
