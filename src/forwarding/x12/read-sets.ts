// What a supplier's X12 transaction sets say, read without I/O (docs/edi.md, "In"): a 997's verdict
// on one of our interchanges, an 855's answer per PO1 line, an 856's shipped quantities with carrier
// and tracking, an 810's invoiced price per line, an 846's stock per item. Items name a line by our
// line id (PO101 we wrote, echoed as PO101, LIN01 or IT101) or by the product (VP, UP, EN, UK).
import type { InvoiceCharge } from "../../db/schema";
import { toCurrencyCode } from "../../lib/currency";
import { el, type Segment, type TransactionSet } from "../../lib/x12/x12";

/** How an item names its line: our line id when given, the product's ids otherwise. */
export type ItemRef = { lineId: string | null; sku: string | null; barcode: string | null };

export type AckVerdict = { kind: "997"; group: string; functionalId: string; code: string; words: string };
export type LineAnswer = { kind: "855"; order: string; item: ItemRef; action: "accept" | "decline" | "partial"; quantity: number | null; reason: string | null };
export type Shipped = { kind: "856"; order: string; item: ItemRef; quantity: number; carrier: string | null; tracking: string | null; shipment: string | null };
export type Invoiced = {
  kind: "810";
  order: string;
  invoice: string;
  item: ItemRef;
  quantity: number;
  unitPrice: number;
  /** CUR02, null when the invoice names no currency. */
  currency: string | null;
  /** The SACs within this IT1, and those of the whole invoice (after TDS): the same on each of its lines. */
  charges: InvoiceCharge[];
  invoiceCharges: InvoiceCharge[];
};
export type Stocked = { kind: "846"; item: ItemRef; quantity: number };
export type SetItem = AckVerdict | LineAnswer | Shipped | Invoiced | Stocked;

/** A set that cannot be read, in words. */
export class SetUnreadable extends Error {}

const AK9_WORDS: Record<string, string> = { A: "accepted", E: "accepted, but errors were noted", P: "partially accepted", R: "rejected", M: "rejected, message authentication code failed", W: "rejected, assurance failed validity tests", X: "rejected, content could not be analysed" };
const AK5_WORDS: Record<string, string> = {
  "1": "transaction set not supported",
  "2": "transaction set trailer missing",
  "3": "transaction set control number in header and trailer do not match",
  "4": "number of included segments does not match actual count",
  "5": "one or more segments in error",
  "6": "missing or invalid transaction set identifier",
  "7": "missing or invalid transaction set control number",
};
const AK9_ERRORS: Record<string, string> = {
  "1": "functional group not supported",
  "2": "functional group version not supported",
  "3": "functional group trailer missing",
  "4": "group control number in the functional group header and trailer do not agree",
  "5": "number of included transaction sets does not match actual count",
  "6": "group control number violates syntax",
};
const ACK_WORDS: Record<string, string> = {
  IA: "item accepted",
  IR: "item rejected",
  IB: "item backordered",
  IQ: "item accepted, quantity changed",
  IC: "item accepted, changes made",
  ID: "item deleted",
  IP: "item accepted, price changed",
  IS: "item accepted, substitution made",
  R2: "item rejected, invalid item product number",
  R3: "item rejected, invalid unit of issue",
};

const number = (value: string, what: string): number => {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) throw new SetUnreadable(`${what} "${value}" is not a number.`);
  return n;
};

/** The product ids of a segment's qualifier/value pairs from element `from` (PO106/107…, LIN02/03…, IT106/107…). */
function itemRef(segment: Segment, from: number, lineId: string | null): ItemRef {
  let sku: string | null = null;
  let barcode: string | null = null;
  for (let n = from; n < segment.elements.length; n += 2) {
    const q = el(segment, n);
    const v = el(segment, n + 1);
    if (!v) continue;
    if (q === "VP" || q === "SK" || q === "VN") sku ??= v;
    else if (q === "UP" || q === "EN" || q === "UK") barcode ??= v;
  }
  return { lineId: lineId && /^\d+$/.test(lineId) ? lineId : null, sku, barcode };
}

/** A 997: per AK1 group, AK9's code, and the AK5/AK9 error codes in words. */
function read997(set: TransactionSet): AckVerdict[] {
  const out: AckVerdict[] = [];
  let group = "";
  let functionalId = "";
  const notes: string[] = [];
  for (const s of set.segments) {
    if (s.id === "AK1") [functionalId, group] = [el(s, 1), el(s, 2)];
    else if (s.id === "AK2") notes.push(`set ${el(s, 1)} ${el(s, 2)}`);
    else if (s.id === "AK5" && el(s, 1) !== "A") {
      const codes = s.elements.slice(1).filter(Boolean);
      notes[notes.length - 1] = `${notes.at(-1) ?? "a set"}: ${AK9_WORDS[el(s, 1)] ?? el(s, 1)}${codes.length ? ` (${codes.map((c) => `${c} ${AK5_WORDS[c] ?? "unknown code"}`).join("; ")})` : ""}`;
    } else if (s.id === "AK9") {
      const code = el(s, 1);
      const errors = s.elements.slice(4).filter(Boolean).map((c) => `${c} ${AK9_ERRORS[c] ?? "unknown code"}`);
      const detail = [...notes.filter((n) => n.includes(":")), ...errors];
      out.push({ kind: "997", group, functionalId, code, words: `AK9 ${code}: ${AK9_WORDS[code] ?? "unknown code"}${detail.length ? `; ${detail.join("; ")}` : ""}` });
    }
  }
  if (!out.length) throw new SetUnreadable("The 997 has no AK9 segment.");
  return out;
}

/** An 855: BAK03 our order reference; per PO1 its ACK segments (IA accept, IR decline, IB/IQ and less than ordered: partial). */
function read855(set: TransactionSet): LineAnswer[] {
  const bak = set.segments.find((s) => s.id === "BAK");
  if (!bak || !el(bak, 3)) throw new SetUnreadable("The 855 has no BAK segment with our order reference (BAK03).");
  const order = el(bak, 3);
  const out: LineAnswer[] = [];
  let current: { item: ItemRef; ordered: number; acks: Segment[] } | null = null;
  const close = () => {
    if (!current) return;
    const { item, ordered, acks } = current;
    // BAK02 AT/AD without line detail accepts every line as ordered; an ACK per PO1 says otherwise.
    const codes = acks.map((a) => el(a, 1));
    const confirmed = acks.filter((a) => ["IA", "IQ", "IC", "IP", "IS"].includes(el(a, 1))).reduce((n, a) => n + (el(a, 2) ? number(el(a, 2), "ACK02") : ordered), 0);
    const words = acks.map((a) => `${el(a, 1)} ${ACK_WORDS[el(a, 1)] ?? "unknown code"}${el(a, 2) ? ` ${el(a, 2)}` : ""}`).join(", ");
    if (acks.length === 0 || (codes.every((c) => c === "IA") && confirmed >= ordered)) out.push({ kind: "855", order, item, action: "accept", quantity: null, reason: null });
    else if (confirmed === 0) out.push({ kind: "855", order, item, action: "decline", quantity: null, reason: `Rejected in the supplier's 855: ${words}` });
    else out.push({ kind: "855", order, item, action: "partial", quantity: confirmed, reason: `Confirmed in part in the supplier's 855: ${words}` });
    current = null;
  };
  for (const s of set.segments) {
    if (s.id === "PO1") {
      close();
      current = { item: itemRef(s, 6, el(s, 1)), ordered: el(s, 2) ? number(el(s, 2), "PO102") : 0, acks: [] };
    } else if (s.id === "ACK" && current) current.acks.push(s);
    else if (s.id === "CTT") close();
  }
  close();
  return out;
}

/** An 856: TD5 carrier and REF*CN tracking per shipment (MAN per pack), PRF01 our order, LIN/SN1 the items and quantities. */
function read856(set: TransactionSet): Shipped[] {
  const bsn = set.segments.find((s) => s.id === "BSN");
  const shipment = bsn ? el(bsn, 2) || null : null;
  const out: Shipped[] = [];
  let carrier: string | null = null;
  let tracking: string | null = null;
  let packTracking: string | null = null;
  let order = "";
  let item: ItemRef | null = null;
  for (const s of set.segments) {
    if (s.id === "HL" && el(s, 3) === "P") packTracking = null;
    else if (s.id === "TD5") carrier = el(s, 5) || el(s, 3) || carrier;
    else if (s.id === "REF" && el(s, 1) === "CN") tracking = el(s, 2) || tracking;
    else if (s.id === "MAN" && el(s, 2)) packTracking = el(s, 2);
    else if (s.id === "PRF") order = el(s, 1);
    else if (s.id === "LIN") item = itemRef(s, 2, el(s, 1));
    else if (s.id === "SN1") {
      if (!item) throw new SetUnreadable("The 856 has an SN1 segment before any LIN.");
      if (!order) throw new SetUnreadable("The 856 names no order of ours (PRF01) before its items.");
      out.push({ kind: "856", order, item, quantity: number(el(s, 2), "SN102"), carrier, tracking: packTracking ?? tracking, shipment });
    }
  }
  return out;
}

/**
 * A SAC: A allowance or C charge (N, neither, is left out), SAC02 its code, SAC15 its words, and its
 * amount: SAC05 in cents (N2) when given (it takes precedence, as X12 says), else SAC07 percent of
 * `base` (what it applies to: its line's amount, or for the whole invoice the lines' sum), else SAC08 a
 * rate per unit times `units` (its line's quantity, or every line's). Rounded to the cent.
 */
function charge(s: Segment, base: () => { amount: number; units: number }): InvoiceCharge | null {
  const type: InvoiceCharge["type"] | null = el(s, 1) === "A" ? "allowance" : el(s, 1) === "C" ? "charge" : null;
  if (!type) return null;
  const of = { type, code: el(s, 2), description: el(s, 15) || null };
  const cents = el(s, 5);
  if (cents !== "") {
    if (!/^\d{1,15}$/.test(cents)) throw new SetUnreadable(`SAC05 "${cents}" is not an amount in cents.`);
    return { ...of, amount: Number(cents) / 100 };
  }
  if (el(s, 7) !== "") {
    const percent = number(el(s, 7), "SAC07");
    return { ...of, amount: toCents((base().amount * percent) / 100) / 100, percent };
  }
  if (el(s, 8) !== "") {
    const rate = number(el(s, 8), "SAC08");
    return { ...of, amount: toCents(base().units * rate) / 100, rate };
  }
  throw new SetUnreadable(`The ${type} ${of.code || "without a code"} (SAC) says neither its amount (SAC05), its percent (SAC07) nor its rate (SAC08).`);
}

/** An amount in cents, rounded half up from its decimal value (1.15 × 50 % is 0.575, so 0.58, not binary's 0.57). */
const toCents = (amount: number) => Math.round(Number((amount * 100).toPrecision(12)));
/** SAC12 ways of handling a charge that are part of the invoice's total: 02 off invoice, 06 paid by the customer (none given: part of it). */
const IN_TOTAL = new Set(["", "02", "06"]);

/**
 * An 810: BIG02 the invoice number, BIG04 our order reference, CUR02 its currency; per IT1 the
 * quantity and unit price and the SACs after it; the SACs after TDS are the whole invoice's. TDS01,
 * when given, must be what the lines, their charges and the invoice's (those handled on the invoice:
 * SAC12 none, 02 or 06) and the taxes (TXI02) make, to a cent per line and per reckoned charge:
 * an invoice that does not add up is refused in words.
 */
function read810(set: TransactionSet): Invoiced[] {
  const big = set.segments.find((s) => s.id === "BIG");
  if (!big || !el(big, 2) || !el(big, 4)) throw new SetUnreadable("The 810 has no BIG segment with its invoice number (BIG02) and our order reference (BIG04).");
  const cur = set.segments.find((s) => s.id === "CUR");
  const currency = cur ? toCurrencyCode(el(cur, 2)) : null;
  if (cur && currency === null) throw new SetUnreadable(`CUR02 "${el(cur, 2)}" is not an ISO 4217 currency code.`);
  const lines: Invoiced[] = [];
  const invoiceCharges: InvoiceCharge[] = [];
  // The whole invoice's SACs apply to all its lines: read once every line is.
  const invoiceSacs: Segment[] = [];
  // What TDS01 sums besides the lines: the charges handled on the invoice (SAC12), and the taxes (TXI02).
  const outsideTotal = new Set<InvoiceCharge>();
  // Taxes: the summary's TXIs (after TDS) when it has any, as they total the invoice's; else the lines'.
  let lineTaxCents = 0;
  let summaryTaxCents: number | null = null;
  let tds: Segment | null = null;
  const read = (s: Segment, base: () => { amount: number; units: number }) => {
    const c = charge(s, base);
    // Kept and shown with how it is handled, so nobody adds it into what the invoice asks.
    if (c && !IN_TOTAL.has(el(s, 12))) {
      c.handling = el(s, 12);
      outsideTotal.add(c);
    }
    return c;
  };
  for (const s of set.segments) {
    if (s.id === "IT1") {
      lines.push({ kind: "810", order: el(big, 4), invoice: el(big, 2), item: itemRef(s, 6, el(s, 1)), quantity: number(el(s, 2), "IT102"), unitPrice: number(el(s, 4), "IT104"), currency, charges: [], invoiceCharges });
    } else if (s.id === "TDS") tds = s;
    else if (s.id === "TXI" && el(s, 2) !== "") {
      const tax = toCents(number(el(s, 2), "TXI02"));
      if (tds) summaryTaxCents = (summaryTaxCents ?? 0) + tax;
      else lineTaxCents += tax;
    }
    else if (s.id === "SAC") {
      const line = tds || !lines.length ? null : lines[lines.length - 1];
      if (!line) invoiceSacs.push(s);
      else {
        const c = read(s, () => ({ amount: line.quantity * line.unitPrice, units: line.quantity }));
        if (c) line.charges.push(c);
      }
    }
  }
  const merchandise = () => ({ amount: lines.reduce((sum, l) => sum + l.quantity * l.unitPrice, 0), units: lines.reduce((sum, l) => sum + l.quantity, 0) });
  for (const s of invoiceSacs) {
    const c = read(s, merchandise);
    if (c) invoiceCharges.push(c);
  }
  if (tds) {
    const stated = el(tds, 1);
    if (!/^-?\d{1,15}$/.test(stated)) throw new SetUnreadable(`TDS01 "${stated}" is not an amount in cents.`);
    const signed = (c: InvoiceCharge) => (outsideTotal.has(c) ? 0 : c.type === "charge" ? toCents(c.amount) : -toCents(c.amount));
    const all = [...lines.flatMap((l) => l.charges), ...invoiceCharges];
    const made = lines.reduce((sum, l) => sum + toCents(l.quantity * l.unitPrice), 0) + all.reduce((x, c) => x + signed(c), 0) + (summaryTaxCents ?? lineTaxCents);
    // A cent of rounding for each line and each charge in the total reckoned from a percent or a rate.
    const slack = Math.max(1, lines.length + all.filter((c) => !outsideTotal.has(c) && (c.percent !== undefined || c.rate !== undefined)).length);
    if (Math.abs(made - Number(stated)) > slack) {
      throw new SetUnreadable(
        `The 810's total (TDS01) is ${(Number(stated) / 100).toFixed(2)}, but its lines with their allowances, charges and taxes make ${(made / 100).toFixed(2)}.`,
      );
    }
  }
  return lines;
}

/** An 846: per LIN its QTY (33 available for sale, or 17 on hand). */
function read846(set: TransactionSet): Stocked[] {
  const out: Stocked[] = [];
  let item: ItemRef | null = null;
  for (const s of set.segments) {
    if (s.id === "LIN") item = itemRef(s, 2, null);
    else if (s.id === "QTY" && item && ["33", "17"].includes(el(s, 1))) {
      out.push({ kind: "846", item, quantity: Math.max(0, Math.floor(number(el(s, 2), "QTY02"))) });
      item = null;
    }
  }
  return out;
}

export const READERS: Record<string, (set: TransactionSet) => SetItem[]> = { "997": read997, "855": read855, "856": read856, "810": read810, "846": read846 };
