// A feed's first rows as an import would read them, before anything is saved: draft settings
// (format, mapping, separator, record path, encoding) applied to a pasted sample or to the first
// rows at a url. Nothing is written, and a download stops once those rows are read.
import { ColumnReport, FeedError, fileFieldNames, onlySkuMessage, readFeed, unmappedWarning, type ReadOptions } from "./feed-readers";
import { MAX_FEED_BYTES, openUrl } from "./imports.service";
import { toProductRow, type ProductRow } from "./product-row";
import type { FileServerLogin } from "./feed-servers";

/** Rows a preview shows. */
export const PREVIEW_ROWS = 10;
/** A preview waits for a url no longer than this (or FEED_TIMEOUT_MS when shorter). */
export const PREVIEW_TIMEOUT_MS = 30_000;

/** A feed's reading settings as drafted: the reader's options, with the feed's encoding in place of a file's charset. */
export type PreviewSettings = Omit<ReadOptions, "charset" | "maxBytes"> & { encoding: string | null };

export type PreviewRow = { line: number; row: ProductRow } | { line: number; sku: string | null; errors: string[] };

export type FeedPreview = {
  rows: PreviewRow[];
  /** The file's names seen in those rows, and those no product field reads. */
  names: string[];
  unmapped: string[];
  /** The import's warning for such a file, or null. */
  warning: string | null;
  /** Why an import of such a file would fail, or null. */
  error: string | null;
};

export type PreviewSource = { text: string } | { url: string; timeoutMs: number; login?: FileServerLogin | null };

export async function previewFeed(settings: PreviewSettings, source: PreviewSource): Promise<FeedPreview> {
  const report = new ColumnReport();
  const rows: PreviewRow[] = [];
  let error: string | null = null;
  let hint: string | undefined;
  try {
    // Pasted text is already text: its bytes are UTF-8, whatever the feed's files are in.
    const file =
      "text" in source
        ? { body: new Response(source.text).body!, charset: "utf-8" }
        : await openUrl({ url: source.url, format: settings.format, encoding: settings.encoding, login: source.login }, source.timeoutMs);
    hint = "hint" in file ? file.hint : undefined;
    const options: ReadOptions = { ...settings, charset: file.charset, maxBytes: MAX_FEED_BYTES };
    // Leaving the loop early ends the reader, which stops reading (and downloading) the file.
    read: for await (const batch of readFeed(file.body, options, report)) {
      for (const record of batch) {
        if ("error" in record) rows.push({ line: record.line, sku: record.sku, errors: [record.error] });
        else {
          const result = toProductRow(record.fields, fileFieldNames(settings.format, settings.mapping, report));
          rows.push("row" in result ? { line: record.line, row: result.row } : { line: record.line, ...result });
        }
        if (rows.length >= PREVIEW_ROWS) break read;
      }
    }
    if (rows.length === 0) throw new FeedError("The file contains no product records.");
    if (report.onlySku) throw new FeedError(onlySkuMessage(settings.format, settings.mapping, report));
  } catch (e) {
    if (!(e instanceof FeedError)) throw e;
    error = [e.message, hint].filter(Boolean).join(" ");
  }
  return { rows, names: report.names, unmapped: report.unmapped, warning: error ? null : unmappedWarning(settings.format, report), error };
}
