// A refused X12 file answered as X12 expects (docs/edi.md, "Our 997"): when its envelope can be
// read, each functional group in it gets our 997 rejecting it (AK9 R), every set AK5 R, the set at
// fault with its code and the group's own errors (AK9 05+), so the supplier's system learns of it.
// The file is applied whole or not at all, so no set of it is acknowledged as accepted. A file whose
// ISA cannot be read gets none: which interchange, and whose, cannot be told.
import type { GroupAck } from "../channels/x12/documents";

/** Where a refusal lies: the set (interchange ISA13, group GS06, set ST02) and its AK5 code. */
export type SetFault = { interchange: string; group: string; set: string; code: string };

/** A file that cannot be applied, the reason in words: nothing of it is. `fault`: the set at fault; `answer: false`: no 997 (a duplicate interchange). */
export class X12FileRefused extends Error {
  constructor(
    message: string,
    readonly fault?: SetFault,
    readonly answer = true,
  ) {
    super(message);
  }
}

/** AK5 codes (X12 004010 element 718). */
export const AK5 = { notSupported: "1", trailerMissing: "2", controlMismatch: "3", countMismatch: "4", segmentsInError: "5" } as const;
/** AK9 group error codes (element 716). */
const AK9 = { trailerMissing: "3", controlMismatch: "4", countMismatch: "5" } as const;

const ISA_LENGTH = 106;

/**
 * The groups of a refused file, each to be answered with a 997 rejecting it, per interchange; null
 * when no ISA of it can be read. Read leniently (the strict reader refused it): what a problem
 * hides is still found where it can be (sets whose SE is missing, a group without its GE).
 */
export function refusedGroups(text: string, fault?: SetFault): { interchange: string; groups: GroupAck[] }[] | null {
  const body = text.replace(/^\ufeff/, "").replace(/^\s+/, "");
  if (!body.startsWith("ISA") || body.length < ISA_LENGTH) return null;
  const [element, segment] = [body[3], body[105]];
  if (/[A-Za-z0-9 ]/.test(element) || /[A-Za-z0-9 ]/.test(segment) || element === segment) return null;
  const segments = body
    .split(segment)
    .map((s) => s.replace(/^[\r\n]+|[\r\n]+$/g, ""))
    .filter((s) => s.trim() !== "")
    .map((s) => s.split(element));
  const out: { interchange: string; groups: GroupAck[] }[] = [];
  type Group = GroupAck & { errors: string[] };
  let group: Group | null = null;
  let set: { id: string; control: string; count: number } | null = null;
  const closeSet = (se?: string[]) => {
    if (!set || !group) return;
    const codes: string[] = [];
    if (!se) codes.push(AK5.trailerMissing);
    else {
      if (Number(se[1]) !== set.count + 1 || !/^\d+$/.test(se[1] ?? "")) codes.push(AK5.countMismatch);
      if (se[2] !== set.control) codes.push(AK5.controlMismatch);
    }
    group.sets.push({ id: set.id, control: set.control, accepted: false, codes });
    set = null;
  };
  const closeGroup = (ge?: string[]) => {
    closeSet();
    if (!group) return;
    if (!ge) group.errors.push(AK9.trailerMissing);
    else {
      if (Number(ge[1]) !== group.sets.length || !/^\d+$/.test(ge[1] ?? "")) group.errors.push(AK9.countMismatch);
      if (ge[2] !== group.control) group.errors.push(AK9.controlMismatch);
    }
    out.at(-1)?.groups.push(group);
    group = null;
  };
  for (const s of segments) {
    const id = s[0];
    if (id === "ISA") {
      closeGroup();
      // An interchange is answered only when its ISA is whole: 16 elements, a 9-digit ISA13.
      if (s.length !== 17 || !/^\d{9}$/.test(s[13] ?? "")) return out.length ? out : null;
      out.push({ interchange: s[13], groups: [] });
    } else if (!out.length) return null;
    else if (id === "GS") {
      closeGroup();
      group = { functionalId: s[1] ?? "", control: s[6] ?? "", sets: [], errors: [] };
    } else if (id === "ST") {
      closeSet();
      if (group) set = { id: s[1] ?? "", control: s[2] ?? "", count: 1 };
    } else if (id === "SE") closeSet(s);
    else if (id === "GE") closeGroup(s);
    else if (id === "IEA") closeGroup();
    else if (set) set.count++;
  }
  closeGroup();
  // The fault found when the file was read for what it says (a set we do not take, a line we never sent).
  for (const i of out) {
    for (const g of i.groups) {
      for (const s of g.sets) {
        if (fault && i.interchange === fault.interchange && g.control === fault.group && s.control === fault.set && !s.codes?.includes(fault.code)) s.codes = [...(s.codes ?? []), fault.code];
      }
    }
  }
  // Acknowledgements are not acknowledged, refused or not.
  return out.map((i) => ({ interchange: i.interchange, groups: i.groups.filter((g) => g.functionalId !== "FA") }));
}
