// Return answer files: what a file supplier drops in its inbound folder to answer returns, beside its
// dispatch answer files, named return-answers… (.csv or .json; docs/returns.md). The file channel's
// reader (src/forwarding/inbound-files.service.ts) claims it once as any answer file and hands its
// bytes here; each answer is checked as the supplier API checks it (ReturnAnswerBody) and carried out
// by the same move (moveReturn: one guarded batch), so a bad answer is refused with the reason and
// nothing of it is written, and the good ones around it are applied.
import { parse as csvParse } from "csv-parse/sync";
import type { Db } from "../db";
import type { AuthenticatedSupplier } from "../env";
import { ApiError, type ValidationErrors } from "../lib/errors";
import type { Pipeline } from "../lib/queue";
import { toValidationErrors } from "../lib/validation";
import { moveReturn } from "./answers.service";
import { ReturnAnswerBody } from "./returns.schemas";

/** A file in the inbound folder is a return answer file when its name starts so (any case). */
export const isReturnAnswerFile = (name: string) => /^return-answers?\b/i.test(name);

/** A CSV's columns: one row per answer; a receipt one row per line, its rows together (same return_id, action receive). */
export const RETURN_ANSWER_COLUMNS = ["return_id", "action", "rma", "return_address", "label_url", "reason", "line_id", "quantity", "condition", "amount", "currency"] as const;

/** One row's result, as the inbound file's rows record them (line_id: the receipt row's order line). */
export type ReturnRowResult = { row: number; lineId: number | null; action: string | null; result: "applied" | "refused"; message: string | null };

/** One answer of the file: the rows it came from, its return, its body as the API would take it. */
type FileAnswer = { rows: number[]; lineIds: (number | null)[]; returnId: unknown; body: Record<string, unknown> };

/**
 * Answers one file may hold: each is a move of its own (about 8 statements in 2 round trips), and the
 * cron's invocation shares D1's 1,000 queries among every sweeper; more is refused whole, unapplied.
 */
export const MAX_RETURN_FILE_ANSWERS = 50;

export class ReturnFileUnreadable extends Error {}

const blank = (v: unknown) => v === undefined || v === null || (typeof v === "string" && v.trim() === "");

function fromJson(text: string): FileAnswer[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ReturnFileUnreadable("The file is not valid JSON.");
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { answers?: unknown } | null)?.answers;
  if (!Array.isArray(list)) throw new ReturnFileUnreadable('The file must hold a JSON array of return answers (or {"answers": [...]}).');
  return list.map((item, i) => {
    const { return_id, ...body } = item && typeof item === "object" ? (item as Record<string, unknown>) : ({} as Record<string, unknown>);
    const lineIds = Array.isArray(body.lines) ? body.lines.map((l) => (typeof (l as { line_id?: unknown })?.line_id === "number" ? (l as { line_id: number }).line_id : null)) : [null];
    return { rows: [i + 1], lineIds: [lineIds[0] ?? null], returnId: return_id, body };
  });
}

function fromCsv(text: string): FileAnswer[] {
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const delimiter = [";", "\t", "|", ","].find((d) => firstLine.includes(d)) ?? ",";
  let records: Record<string, string>[];
  try {
    records = csvParse(text, { columns: (h: string[]) => h.map((c) => c.trim().toLowerCase()), delimiter, bom: true, skip_empty_lines: true, relax_column_count: true });
  } catch (error) {
    throw new ReturnFileUnreadable(`The file is not valid CSV: ${error instanceof Error ? error.message : String(error)}`);
  }
  const out: FileAnswer[] = [];
  records.forEach((raw, i) => {
    const r = Object.fromEntries(RETURN_ANSWER_COLUMNS.flatMap((c) => (blank(raw[c]) ? [] : [[c, raw[c].trim()]])));
    const lineId = /^\d+$/.test(r.line_id ?? "") ? Number(r.line_id) : null;
    const line = { line_id: lineId ?? r.line_id, quantity: r.quantity, condition: r.condition };
    const last = out.at(-1);
    if (r.action === "receive" && last?.body.action === "receive" && last.returnId === r.return_id) {
      (last.body.lines as unknown[]).push(line);
      last.rows.push(i + 1);
      last.lineIds.push(lineId);
      return;
    }
    const { return_id, line_id: _l, quantity: _q, condition: _c, ...fields } = r;
    out.push({ rows: [i + 1], lineIds: [lineId], returnId: return_id, body: r.action === "receive" ? { ...fields, lines: [line] } : fields });
  });
  return out;
}

const said = (errors: ValidationErrors) => Object.values(errors).flat().join(" ");

/**
 * Applies a return answer file's answers, one move each, in the file's order; every row's result.
 * `format`: the supplier's inbound format for .csv/.json by name, else by the file's extension.
 */
export async function applyReturnAnswerFile(db: Db, pipeline: Pipeline, supplier: AuthenticatedSupplier, name: string, text: string): Promise<ReturnRowResult[]> {
  const answers = /\.json$/i.test(name) ? fromJson(text) : /\.csv$/i.test(name) || /\.txt$/i.test(name) ? fromCsv(text) : null;
  if (!answers) throw new ReturnFileUnreadable("A return answer file is read as CSV (.csv) or JSON (.json): name it so.");
  if (answers.length > MAX_RETURN_FILE_ANSWERS) {
    throw new ReturnFileUnreadable(`The file holds ${answers.length} answers; a return answer file holds at most ${MAX_RETURN_FILE_ANSWERS} (a receipt's rows count as one): split it, nothing of it was applied.`);
  }
  const results: ReturnRowResult[] = [];
  const mover = { accountId: supplier.accountId, supplierId: supplier.id, who: `supplier ${supplier.name} (answer file)` };
  for (const a of answers) {
    const action = typeof a.body.action === "string" ? a.body.action : null;
    const record = (result: "applied" | "refused", message: string | null) =>
      a.rows.forEach((row, k) => results.push({ row, lineId: a.lineIds[k] ?? null, action, result, message }));
    const id = typeof a.returnId === "number" ? a.returnId : typeof a.returnId === "string" && /^\d+$/.test(a.returnId) ? Number(a.returnId) : null;
    if (id === null) {
      record("refused", "The row names no return: give its return_id.");
      continue;
    }
    const read = ReturnAnswerBody.safeParse(a.body);
    if (!read.success) {
      record("refused", `Return ${id}: ${said(toValidationErrors(read.error, a.body))}`);
      continue;
    }
    try {
      const moved = await moveReturn(db, pipeline, mover, id, read.data);
      record("applied", `Return ${id}: ${moved.status}`);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      record("refused", `Return ${id}: ${error.detail?.errors ? said(error.detail.errors) : (error.detail?.error ?? error.message)}`);
    }
  }
  return results;
}
