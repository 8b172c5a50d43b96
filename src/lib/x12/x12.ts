// X12's shapes as the reader gives them and the writer takes them: an interchange (ISA/IEA) of
// functional groups (GS/GE) of transaction sets (ST/SE) of segments. A segment's elements are kept
// as written (elements[0] is its 01 element); a composite element's parts are split with `parts`.

export type Separators = { element: string; segment: string; component: string };

export const DEFAULT_SEPARATORS: Separators = { element: "*", segment: "~", component: ">" };

export type Segment = { id: string; elements: string[] };

export type TransactionSet = { id: string; control: string; segments: Segment[] };

export type FunctionalGroup = {
  /** GS01: PO (850), PR (855), SH (856), IN (810), IB (846), PC (860), FA (997). */
  functionalId: string;
  sender: string;
  receiver: string;
  /** GS04 CCYYMMDD, GS05 HHMM. */
  date: string;
  time: string;
  control: string;
  /** GS08, e.g. 004010 or 004010VICS. */
  version: string;
  sets: TransactionSet[];
};

export type InterchangeHeader = {
  senderQualifier: string;
  senderId: string;
  receiverQualifier: string;
  receiverId: string;
  /** ISA09 YYMMDD, ISA10 HHMM. */
  date: string;
  time: string;
  /** ISA12, e.g. 00401. */
  version: string;
  /** ISA13: nine digits. */
  control: string;
  ackRequested: string;
  /** ISA15: P production, T test. */
  usage: string;
};

export type Interchange = { separators: Separators; header: InterchangeHeader; groups: FunctionalGroup[] };

/** A file that is not valid X12, the reason in words. */
export class X12Error extends Error {}

/** The functional identifier code (GS01) of each transaction set we write or read. */
export const FUNCTIONAL_ID: Record<string, string> = { "850": "PO", "855": "PR", "856": "SH", "810": "IN", "846": "IB", "860": "PC", "997": "FA" };

/** A composite element's parts. */
export const parts = (value: string, separators: Separators) => value.split(separators.component);

/** The n-th element (X12's own numbering: 1 is the first after the segment id), "" when absent. */
export const el = (segment: Segment, n: number) => segment.elements[n - 1] ?? "";
