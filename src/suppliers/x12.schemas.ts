// The `file_transfer.x12` setting of a supplier whose files are X12 (format "x12"): who we are and
// who it is in the envelope, the separators, and which answers it sends back. docs/edi.md.
import { z } from "@hono/zod-openapi";
import { field } from "../lib/validation";

export const X12_SETS_BACK = ["997", "855", "856", "810", "846"] as const;
export const X12_VERSIONS = ["004010", "004010VICS", "005010", "005010VICS"] as const;

/** ISA05/ISA07 qualifiers in use (01 DUNS, 08 UCC/EAN, 12 phone, 14 DUNS+4, 16, ZZ mutually defined, …): two letters or digits. */
const QUALIFIER = /^[A-Z0-9]{2}$/;
/** What an ID may hold: printable ASCII (X12's basic and extended character sets), no separator. */
const PRINTABLE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

const qualifier = (description: string) =>
  field
    .optionalId(2)
    .refine((v) => v === undefined || v.length > 2 || QUALIFIER.test(v), "The :attribute field must be two capital letters or digits (ZZ, 01, 08, 12, …).")
    .openapi({ description });

const PRINTABLE_MESSAGE = "The :attribute field must hold printable ASCII characters only.";
const id = (max: number, description: string) =>
  field.id(max).refine((v) => v.length > max || PRINTABLE.test(v), PRINTABLE_MESSAGE).openapi({ description });
const optionalId = (max: number, description: string) =>
  field.optionalId(max).refine((v) => v === undefined || v.length > max || PRINTABLE.test(v), PRINTABLE_MESSAGE).openapi({ description });

const separator = (fallback: string, what: string) =>
  z
    .string({ error: "The :attribute field must be a string." })
    .refine((v) => [...v].length === 1, "The :attribute field must be exactly one character.")
    .refine((v) => [...v].length !== 1 || !/[\p{L}\p{N}\s]/u.test(v) || v === "\n", "The :attribute field must not be a letter, a digit or a space.")
    .optional()
    .openapi({ description: `The ${what} (default "${fallback}"): one character that is not a letter, a digit or a space, and differs from the other two.` });

export const X12Settings = z
  .object({
    version: z.enum(X12_VERSIONS).optional().openapi({ description: "GS08, the version (and VICS release) of the sets we write: 004010 (the default), 004010VICS, 005010 or 005010VICS." }),
    sender_qualifier: qualifier("ISA05: the qualifier of our id (default ZZ, mutually defined)."),
    sender_id: id(15, "ISA06: our id in the supplier's EDI, up to 15 characters (padded with spaces as ISA requires)."),
    receiver_qualifier: qualifier("ISA07: the qualifier of the supplier's id (default ZZ)."),
    receiver_id: id(15, "ISA08: the supplier's id, up to 15 characters (padded)."),
    gs_sender: optionalId(15, "GS02: our application sender code, up to 15 characters (default the sender_id)."),
    gs_receiver: optionalId(15, "GS03: the supplier's application receiver code, up to 15 characters (default the receiver_id)."),
    usage: z.enum(["P", "T"]).optional().openapi({ description: "ISA15: P production (the default) or T test." }),
    element_separator: separator("*", "element separator"),
    segment_terminator: separator("~", "segment terminator"),
    component_separator: separator(">", "sub-element (component) separator"),
    sends_back: z
      .array(z.enum(X12_SETS_BACK))
      .max(X12_SETS_BACK.length)
      .optional()
      .openapi({ description: "The transaction sets the supplier sends back: any of 997, 855, 856, 810, 846 (default all of them); a set not listed is refused when it comes." }),
    cancellation: z.enum(["860", "none"]).optional().openapi({ description: "How the supplier takes a cancellation: 860 (a Purchase Order Change, the default) or none (a manual task, as today)." }),
  })
  .superRefine((v, ctx) => {
    const seps: [string, string | undefined][] = [
      ["element_separator", v.element_separator ?? "*"],
      ["segment_terminator", v.segment_terminator ?? "~"],
      ["component_separator", v.component_separator ?? ">"],
    ];
    for (const [name, value] of seps) {
      if (seps.some(([other, o]) => other !== name && o === value)) ctx.addIssue({ code: "custom", path: [name], message: "The :attribute field must differ from the other separators." });
    }
    // Only separators that are themselves valid: a refused one is said once, on its own field.
    const used = new Set(seps.map(([, s]) => s).filter((s): s is string => !!s && [...s].length === 1 && (!/[\p{L}\p{N}\s]/u.test(s) || s === "\n")));
    for (const key of ["sender_id", "receiver_id", "gs_sender", "gs_receiver"] as const) {
      const value = v[key];
      const holds = value ? [...value].find((c) => used.has(c)) : undefined;
      if (holds) ctx.addIssue({ code: "custom", path: [key], message: `The :attribute field must not hold "${holds}", a separator of the files.` });
    }
    if (v.sends_back && new Set(v.sends_back).size !== v.sends_back.length) ctx.addIssue({ code: "custom", path: ["sends_back"], message: "The :attribute field must not name a set twice." });
  })
  .openapi("X12Settings");

export type X12Input = z.output<typeof X12Settings>;

/** What reads show: every setting with its default filled in. */
export const X12Json = z
  .object({
    version: z.enum(X12_VERSIONS),
    sender_qualifier: z.string(),
    sender_id: z.string(),
    receiver_qualifier: z.string(),
    receiver_id: z.string(),
    gs_sender: z.string(),
    gs_receiver: z.string(),
    usage: z.enum(["P", "T"]),
    element_separator: z.string(),
    segment_terminator: z.string(),
    component_separator: z.string(),
    sends_back: z.array(z.enum(X12_SETS_BACK)),
    cancellation: z.enum(["860", "none"]),
  })
  .openapi("X12Detail");
