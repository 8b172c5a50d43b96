// The sends to a supplier on its channel (dispatches, cancellation requests) as the outbound engine
// (src/lib/outbound-job.ts) sees their tables: queued, an attempt holds it while sending, parked as
// failed. The claim, the lease and its renewal, the backoff and the guarded writes are the engine's.
import type { JobTable } from "../lib/outbound-job";

export const DISPATCH_JOB: JobTable = { table: "dispatches", waiting: "queued", busy: "sending", parked: "failed", dueIn: "none", touches: true };
export const CANCELLATION_JOB: JobTable = { table: "cancellations", waiting: "queued", busy: "sending", parked: "failed", dueIn: "none", touches: true };
