// The smallest X12 writer: an interchange with its envelope (ISA fixed width, GS, ST ... SE, GE, IEA)
// and the counts each closing segment carries. X12 has no escape character, so a value holding a
// separator has it replaced by a space (docs/edi.md says so); trailing empty elements are dropped,
// as the standard asks.
import { X12Error, type Interchange, type Segment, type Separators } from "./x12";

/** A value as X12 may carry it: separators made spaces, line breaks too. */
export function clean(value: string, separators: Separators): string {
  let out = "";
  for (const ch of value) out += ch === separators.element || ch === separators.segment || ch === separators.component || ch === "\r" || ch === "\n" ? " " : ch;
  return out;
}

const pad = (value: string, width: number, what: string) => {
  if (value.length > width) throw new X12Error(`${what} "${value}" is longer than the ${width} characters ISA allows.`);
  return value.padEnd(width, " ");
};

function segmentText(segment: Segment, separators: Separators, keepTrailing = false): string {
  const elements = segment.elements.map((e) => clean(e, separators));
  if (!keepTrailing) while (elements.length && elements[elements.length - 1] === "") elements.pop();
  return [segment.id, ...elements].join(separators.element) + separators.segment;
}

/** The interchange's text; each ST/SE, GS/GE and ISA/IEA pair with its counts. `lineBreaks` puts a newline after each segment (read either way). */
export function writeInterchange(interchange: Interchange, options: { lineBreaks?: boolean } = {}): string {
  const s = interchange.separators;
  const h = interchange.header;
  const nl = options.lineBreaks ? "\n" : "";
  if (!/^\d{1,9}$/.test(h.control)) throw new X12Error(`The interchange control number ${h.control} is not a number of up to 9 digits.`);
  // ISA is fixed width; its sub-element separator is its 16th element, written as the character itself.
  const isa = [
    "ISA",
    "00",
    pad("", 10, "ISA02"),
    "00",
    pad("", 10, "ISA04"),
    pad(h.senderQualifier, 2, "The sender qualifier"),
    pad(h.senderId, 15, "The sender id"),
    pad(h.receiverQualifier, 2, "The receiver qualifier"),
    pad(h.receiverId, 15, "The receiver id"),
    h.date,
    h.time,
    "U",
    h.version,
    h.control.padStart(9, "0"),
    h.ackRequested,
    h.usage,
    s.component,
  ].join(s.element);
  let text = isa + s.segment + nl;
  for (const group of interchange.groups) {
    text += segmentText({ id: "GS", elements: [group.functionalId, group.sender, group.receiver, group.date, group.time, group.control, "X", group.version] }, s) + nl;
    for (const set of group.sets) {
      text += segmentText({ id: "ST", elements: [set.id, set.control] }, s) + nl;
      for (const segment of set.segments) text += segmentText(segment, s) + nl;
      text += segmentText({ id: "SE", elements: [String(set.segments.length + 2), set.control] }, s) + nl;
    }
    text += segmentText({ id: "GE", elements: [String(group.sets.length), group.control] }, s) + nl;
  }
  text += segmentText({ id: "IEA", elements: [String(interchange.groups.length), h.control.padStart(9, "0")] }, s) + nl;
  return text;
}
