// The supplier page's "EDI files" (an X12 supplier): the latest files each way, as
// GET /api/v1/suppliers/{id}/x12-interchanges gives them (the same service), with their control
// numbers, status, what each did, and a View of the segments one per line. A refused file of the
// supplier's has no interchange of its own (nothing of it was taken): it is listed from its answer
// file's record, with the reason. docs/edi.md, "Seeing the files".
import type { InboundFile, X12Interchange } from "../db/schema";
import { segmentsOf } from "../lib/x12/reader";
import { Badge } from "../ui/badge";
import { orDash } from "../ui/format";
import { DataTable } from "../ui/table";
import { LocalTime } from "../ui/time";

/** Files shown each way (the rest through the API). */
export const EDI_FILES_SHOWN = 10;
/** Segments a View shows (a file may hold thousands: the API has every one). */
const SEGMENTS_SHOWN = 500;

const SET_NAMES: Record<string, string> = {
  "850": "850 purchase order",
  "860": "860 order change",
  "997": "997 acknowledgement",
  "855": "855 order acknowledgement",
  "856": "856 ship notice",
  "810": "810 invoice",
  "846": "846 inventory",
};
const setsInWords = (sets: string) => sets.split(",").map((s) => SET_NAMES[s] ?? s).join(", ");

/** A row of the supplier's list: an interchange read, or a file refused whole. */
export type IncomingEdi = { kind: "read"; interchange: X12Interchange } | { kind: "refused"; file: InboundFile };

/** The supplier's side: interchanges read and the refused files among its latest answer files, newest first. */
export function incomingEdi(read: X12Interchange[], files: InboundFile[]): IncomingEdi[] {
  const rows: (IncomingEdi & { at: string })[] = [
    ...read.map((interchange) => ({ kind: "read" as const, interchange, at: interchange.createdAt })),
    ...files.filter((f) => f.status === "failed").map((file) => ({ kind: "refused" as const, file, at: file.claimedAt })),
  ];
  return rows.sort((a, b) => b.at.localeCompare(a.at)).slice(0, EDI_FILES_SHOWN);
}

function View({ i }: { i: X12Interchange }) {
  const segments = segmentsOf(i.content);
  return (
    <details class="edi-view">
      <summary>
        View<span class="visually-hidden"> the segments of {i.fileName}</span>
      </summary>
      <pre>
        <code>{segments.slice(0, SEGMENTS_SHOWN).join("\n")}</code>
      </pre>
      {segments.length > SEGMENTS_SHOWN ? <p class="muted">and {segments.length - SEGMENTS_SHOWN} more segments (the API lists every one)</p> : null}
    </details>
  );
}

const STATUS: Record<X12Interchange["status"], { tone: "green" | "red" | "grey"; words: string }> = {
  written: { tone: "grey", words: "Written" },
  accepted: { tone: "green", words: "Accepted" },
  rejected: { tone: "red", words: "Rejected" },
  applied: { tone: "green", words: "Applied" },
  failed: { tone: "red", words: "Failed" },
};

const Status = ({ i }: { i: X12Interchange }) => (
  <span>
    <Badge tone={STATUS[i.status].tone}>{STATUS[i.status].words}</Badge> {orDash(i.note)}
  </span>
);

export function EdiFiles({ name, sent, received }: { name: string; sent: X12Interchange[]; received: IncomingEdi[] }) {
  return (
    <section aria-labelledby="edi-files-heading">
      <h2 id="edi-files-heading">EDI files</h2>
      <p class="muted">The latest {EDI_FILES_SHOWN} X12 files each way, with their interchange control numbers (ISA13); every one through the API.</p>
      <h3 id="edi-sent-heading">Sent to {name}</h3>
      {sent.length === 0 ? (
        <p>No files sent yet.</p>
      ) : (
        <DataTable<X12Interchange>
          caption={`X12 files sent to ${name}, newest first`}
          rows={sent}
          columns={[
            { header: "Control number", numeric: true, cell: (i) => i.controlNumber },
            { header: "Sets", cell: (i) => setsInWords(i.sets) },
            { header: "File", cell: (i) => <code>{i.fileName || "—"}</code> },
            { header: "Written", cell: (i) => <LocalTime iso={i.createdAt} /> },
            { header: "Status", cell: (i) => <Status i={i} /> },
            { header: "Segments", cell: (i) => (i.content ? <View i={i} /> : "—") },
          ]}
        />
      )}
      <h3 id="edi-received-heading">Received from {name}</h3>
      {received.length === 0 ? (
        <p>No files read yet.</p>
      ) : (
        <DataTable<IncomingEdi>
          caption={`X12 files received from ${name}, newest first`}
          rows={received}
          columns={[
            { header: "Control number", numeric: true, cell: (r) => (r.kind === "read" ? r.interchange.controlNumber : "—") },
            { header: "Sets", cell: (r) => (r.kind === "read" ? setsInWords(r.interchange.sets) : "—") },
            { header: "File", cell: (r) => <code>{r.kind === "read" ? r.interchange.fileName : r.file.name}</code> },
            { header: "Read", cell: (r) => <LocalTime iso={r.kind === "read" ? r.interchange.createdAt : r.file.claimedAt} /> },
            {
              header: "Status",
              cell: (r) =>
                r.kind === "read" ? (
                  <Status i={r.interchange} />
                ) : (
                  <span>
                    <Badge tone="red">Failed</Badge> {r.file.error}
                  </span>
                ),
            },
            { header: "Segments", cell: (r) => (r.kind === "read" ? <View i={r.interchange} /> : "not kept: nothing of it was applied") },
          ]}
        />
      )}
    </section>
  );
}
