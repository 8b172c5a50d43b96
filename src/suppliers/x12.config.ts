// The stored X12 settings: what the API took, every default filled in (docs/edi.md).
import type { X12Config } from "../db/schema";
import { X12_SETS_BACK, type X12Input } from "./x12.schemas";

export function x12ConfigOf(input: X12Input): X12Config {
  return {
    version: input.version ?? "004010",
    sender_qualifier: input.sender_qualifier ?? "ZZ",
    sender_id: input.sender_id,
    receiver_qualifier: input.receiver_qualifier ?? "ZZ",
    receiver_id: input.receiver_id,
    gs_sender: input.gs_sender ?? input.sender_id,
    gs_receiver: input.gs_receiver ?? input.receiver_id,
    usage: input.usage ?? "P",
    element_separator: input.element_separator ?? "*",
    segment_terminator: input.segment_terminator ?? "~",
    component_separator: input.component_separator ?? ">",
    sends_back: input.sends_back ?? [...X12_SETS_BACK],
    cancellation: input.cancellation ?? "860",
  };
}
