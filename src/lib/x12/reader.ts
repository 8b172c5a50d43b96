// The smallest X12 reader the file channel needs: interchange -> functional groups -> transaction
// sets -> segments, the separators taken from the ISA (its fixed width tells where they are), every
// envelope count and control number checked. No maintained X12 library runs in workerd without
// Node's streams (docs/edi.md, "Why our own reader and writer").
import { X12Error, type Interchange, type Segment, type Separators } from "./x12";

/** The ISA segment is fixed width: 105 characters, then the segment terminator. */
const ISA_LENGTH = 106;

const said = (control: string) => (control === "" ? "(none)" : control);

/** Every interchange in the text, in order; the first problem found refuses the whole text (X12Error, in words). */
export function readInterchanges(text: string): Interchange[] {
  const body = text.replace(/^\ufeff/, "").replace(/^\s+/, "");
  if (!body.startsWith("ISA")) throw new X12Error("The file does not start with an ISA segment: it is not X12.");
  if (body.length < ISA_LENGTH) throw new X12Error("The ISA segment is cut short: it must be 106 characters long.");
  const element = body[3];
  const component = body[104];
  const segment = body[105];
  if (/[A-Za-z0-9 ]/.test(element) || /[A-Za-z0-9 ]/.test(segment) || element === segment) {
    throw new X12Error("The ISA segment's separators cannot be read: the element separator (4th character) and the segment terminator (106th) must be two different characters other than letters, digits and spaces.");
  }
  const separators: Separators = { element, segment, component };
  // Line breaks after a segment terminator are common (and harmless); inside a segment they are not.
  const segments: Segment[] = body
    .split(segment)
    .map((s) => s.replace(/^[\r\n]+/, "").replace(/[\r\n]+$/, ""))
    .filter((s, i, all) => !(s.trim() === "" && i === all.length - 1))
    .map((s) => {
      const [id, ...elements] = s.split(element);
      return { id, elements };
    });
  const out: Interchange[] = [];
  let at = 0;
  const next = () => segments[at++];
  const peek = () => segments[at];
  while (at < segments.length) {
    const isa = next();
    if (isa.id !== "ISA") throw new X12Error(`Segment ${at} is ${isa.id || "empty"} where an ISA (a new interchange) or the end of the file was expected.`);
    if (isa.elements.length !== 16) throw new X12Error(`The ISA segment has ${isa.elements.length} elements; it must have 16.`);
    const e = isa.elements;
    const interchange: Interchange = {
      separators,
      header: {
        senderQualifier: e[4],
        senderId: e[5].trimEnd(),
        receiverQualifier: e[6],
        receiverId: e[7].trimEnd(),
        date: e[8],
        time: e[9],
        version: e[11],
        control: e[12],
        ackRequested: e[13],
        usage: e[14],
      },
      groups: [],
    };
    if (!/^\d{9}$/.test(e[12])) throw new X12Error(`The interchange control number (ISA13) ${said(e[12])} is not 9 digits.`);
    while (peek() && peek().id === "GS") {
      const gs = next();
      const g = gs.elements;
      const group: Interchange["groups"][number] = {
        functionalId: g[0] ?? "",
        sender: g[1] ?? "",
        receiver: g[2] ?? "",
        date: g[3] ?? "",
        time: g[4] ?? "",
        control: g[5] ?? "",
        version: g[7] ?? "",
        sets: [],
      };
      while (peek() && peek().id === "ST") {
        const st = next();
        const body: Segment[] = [];
        while (peek() && !["SE", "ST", "GE", "GS", "IEA", "ISA"].includes(peek().id)) body.push(next());
        const se = next();
        const setId = st.elements[0] ?? "";
        const control = st.elements[1] ?? "";
        if (!se || se.id !== "SE") throw new X12Error(`Transaction set ${setId} ${said(control)} has no SE segment where it ends.`);
        if (Number(se.elements[0]) !== body.length + 2 || !/^\d+$/.test(se.elements[0] ?? "")) {
          throw new X12Error(`Transaction set ${setId} ${said(control)} counts ${se.elements[0] ?? "no"} segments in its SE, but has ${body.length + 2}.`);
        }
        if (se.elements[1] !== control) throw new X12Error(`Transaction set ${setId}: its SE names control number ${said(se.elements[1] ?? "")}, its ST ${said(control)}.`);
        group.sets.push({ id: setId, control, segments: body });
      }
      const ge = next();
      if (!ge || ge.id !== "GE") throw new X12Error(`Functional group ${said(group.control)} has no GE segment where it ends (found ${ge?.id ?? "the end of the file"}).`);
      if (Number(ge.elements[0]) !== group.sets.length || !/^\d+$/.test(ge.elements[0] ?? "")) {
        throw new X12Error(`Functional group ${said(group.control)} counts ${ge.elements[0] ?? "no"} transaction sets in its GE, but has ${group.sets.length}.`);
      }
      if (ge.elements[1] !== group.control) throw new X12Error(`Functional group: its GE names control number ${said(ge.elements[1] ?? "")}, its GS ${said(group.control)}.`);
      interchange.groups.push(group);
    }
    const iea = next();
    if (!iea || iea.id !== "IEA") throw new X12Error(`Interchange ${e[12]} has no IEA segment where it ends (found ${iea?.id ?? "the end of the file"}).`);
    if (Number(iea.elements[0]) !== interchange.groups.length || !/^\d+$/.test(iea.elements[0] ?? "")) {
      throw new X12Error(`Interchange ${e[12]} counts ${iea.elements[0] ?? "no"} functional groups in its IEA, but has ${interchange.groups.length}.`);
    }
    if (iea.elements[1] !== e[12]) throw new X12Error(`Interchange: its IEA names control number ${said(iea.elements[1] ?? "")}, its ISA ${e[12]}.`);
    out.push(interchange);
  }
  return out;
}

/** The segments of a text one per line, as the console's "View" shows them (no checks: a broken file is shown too). */
export function segmentsOf(text: string): string[] {
  const body = text.replace(/^\ufeff/, "").replace(/^\s+/, "");
  const terminator = body.startsWith("ISA") && body.length >= ISA_LENGTH ? body[105] : "~";
  return body
    .split(terminator)
    .map((s) => s.replace(/^[\r\n]+|[\r\n]+$/g, ""))
    .filter((s) => s.trim() !== "");
}
