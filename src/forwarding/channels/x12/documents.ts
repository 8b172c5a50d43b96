// The X12 documents we write for a supplier (docs/edi.md has an example of each): an 850 per
// dispatch (a drop-ship order), an 860 per cancellation request, a 997 per interchange we read.
// Each is one interchange of one group of one set, and one control number serves ISA13, GS06 and
// ST02: unique and increasing per supplier (./numbers.ts), kept per document so a retry writes the same file.
import type { X12Config } from "../../../db/schema";
import { writeInterchange } from "../../../lib/x12/writer";
import { FUNCTIONAL_ID, type FunctionalGroup, type Interchange, type Segment } from "../../../lib/x12/x12";
import type { CancellationDocument } from "../../cancellation-document";
import type { DispatchDocument } from "../../document";

/** "2026-11-25T10:00:00.000000Z" as X12 dates and times: CCYYMMDD, YYMMDD and HHMM. */
function when(iso: string) {
  const d = iso.slice(0, 10).replace(/-/g, "");
  return { ccyymmdd: d, yymmdd: d.slice(2), hhmm: iso.slice(11, 16).replace(":", "") };
}

/** ISA12 from the version: 004010 -> 00401, 005010VICS -> 00501. */
const isaVersion = (version: string) => version.slice(0, 5);

/** One interchange holding one set, the control number serving ISA13, GS06 and ST02. */
export function envelope(config: X12Config, setId: string, control: number, at: string, segments: Segment[], ack = "0"): Interchange {
  const t = when(at);
  const group: FunctionalGroup = {
    functionalId: FUNCTIONAL_ID[setId],
    sender: config.gs_sender,
    receiver: config.gs_receiver,
    date: t.ccyymmdd,
    time: t.hhmm,
    control: String(control),
    version: config.version,
    sets: [{ id: setId, control: String(control).padStart(4, "0"), segments }],
  };
  return {
    separators: { element: config.element_separator, segment: config.segment_terminator, component: config.component_separator },
    header: {
      senderQualifier: config.sender_qualifier,
      senderId: config.sender_id,
      receiverQualifier: config.receiver_qualifier,
      receiverId: config.receiver_id,
      date: t.yymmdd,
      time: t.hhmm,
      version: isaVersion(config.version),
      control: String(control).padStart(9, "0"),
      ackRequested: ack,
      usage: config.usage,
    },
    groups: [group],
  };
}

const seg = (id: string, ...elements: (string | number | null | undefined)[]): Segment => ({ id, elements: elements.map((e) => (e === null || e === undefined ? "" : String(e))) });

/** A barcode's qualifier: UP for a 12-digit UPC-A, EN for a 13-digit EAN, UK for a 14-digit GTIN. */
export function barcodeQualifier(code: string): string | null {
  if (!/^\d+$/.test(code)) return null;
  return code.length === 12 ? "UP" : code.length === 13 ? "EN" : code.length === 14 ? "UK" : null;
}

/** The product's identifiers as PO1/POC pairs: VP the supplier's SKU, UP/EN/UK the barcode. */
function productIds(line: { reference: string | null; ean13: string | null }): string[] {
  const ids: string[] = [];
  if (line.reference) ids.push("VP", line.reference);
  const q = line.ean13 ? barcodeQualifier(line.ean13) : null;
  if (q && line.ean13) ids.push(q, line.ean13);
  return ids;
}

/** The 850's segments: BEG, REF (the shop's order number), the ship-to (N1/N2/N3/N4/PER), PO1 and PID per line, CTT. */
export function purchaseOrderSegments(doc: DispatchDocument): Segment[] {
  const a = doc.order.shipping_address;
  const name = `${a.first_name ?? ""} ${a.last_name ?? ""}`.trim();
  const contact = [...(a.phone ? ["TE", a.phone] : []), ...(doc.order.email ? ["EM", doc.order.email] : [])];
  return [
    seg("BEG", "00", "DS", doc.order.reference, "", when(doc.order.created_at).ccyymmdd),
    seg("REF", "CO", doc.order.external_id),
    ...(doc.order.shipping.note ? [seg("REF", "ZZ", "", doc.order.shipping.note.slice(0, 80))] : []),
    ...(doc.order.shipping.delivery_date ? [seg("DTM", "002", doc.order.shipping.delivery_date.slice(0, 10).replace(/-/g, ""))] : []),
    seg("N1", "ST", name),
    ...(a.company_name ? [seg("N2", a.company_name)] : []),
    seg("N3", a.address1, a.address2),
    seg("N4", a.city, a.state, a.postcode, a.country),
    ...(contact.length ? [seg("PER", "IC", name, ...contact)] : []),
    ...doc.lines.flatMap((l) => [
      seg("PO1", l.id, l.quantity, "EA", l.purchase_price, l.purchase_price === null ? "" : "PE", ...productIds(l)),
      seg("PID", "F", "", "", "", l.name),
    ]),
    seg("CTT", doc.lines.length, doc.lines.reduce((n, l) => n + l.quantity, 0)),
  ];
}

/** The 850 of a dispatch under control number `control`: its text. */
export function purchaseOrder(doc: DispatchDocument, config: X12Config, control: number): string {
  return writeInterchange(envelope(config, "850", control, doc.created_at, purchaseOrderSegments(doc), "1"));
}

/**
 * The 860 of a cancellation request: BCH (01 cancellation) naming our order, one POC per line,
 * DI (delete the item) when all of it is cancelled, QD (quantity decrease) for part of it.
 */
export function purchaseOrderChange(doc: CancellationDocument, config: X12Config, control: number): string {
  const segments = [
    seg("BCH", "01", "DS", doc.order.reference, "", "", when(doc.created_at).ccyymmdd),
    seg("REF", "CO", doc.order.external_id),
    ...(doc.reason ? [seg("NTE", "GEN", doc.reason.slice(0, 80))] : []),
    ...doc.lines.map((l) => seg("POC", l.id, l.quantity >= l.line_quantity ? "DI" : "QD", l.line_quantity, l.quantity, "EA", "", "", ...productIds(l))),
    seg("CTT", doc.lines.length),
  ];
  return writeInterchange(envelope(config, "860", control, doc.created_at, segments, "1"));
}

/**
 * What a 997 acknowledges of one functional group we read: its sets, each accepted or rejected with
 * its AK5 codes (none given: 5, segments in error), and the group's own errors (AK9 05 onwards).
 */
export type GroupAck = { functionalId: string; control: string; sets: { id: string; control: string; accepted: boolean; codes?: string[] }[]; errors?: string[] };

/** Our 997 for one functional group we read (one interchange each, so its number is ISA13, GS06 and ST02 alike): AK1, AK2/AK5 per set, AK9. */
export function functionalAck(group: GroupAck, config: X12Config, control: number, at: string): string {
  const accepted = group.sets.filter((s) => s.accepted).length;
  const verdict = accepted === group.sets.length && !group.errors?.length ? "A" : accepted === 0 ? "R" : "P";
  const segments = [
    seg("AK1", group.functionalId, group.control),
    ...group.sets.flatMap((s) => [seg("AK2", s.id, s.control), seg("AK5", s.accepted ? "A" : "R", ...(s.accepted ? [] : (s.codes ?? ["5"]).slice(0, 5)))]),
    seg("AK9", verdict, group.sets.length, group.sets.length, accepted, ...(group.errors ?? []).slice(0, 5)),
  ];
  return writeInterchange(envelope(config, "997", control, at, segments));
}
