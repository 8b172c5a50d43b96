// A pipeline whose messages are lost on the way to the queue (a crash right after the write, or a
// failed send): for calling a service directly and proving the sweeper finds the work anyway.
import type { Pipeline, PipelineMessage } from "../../src/lib/queue";

export function losingPipeline(): Pipeline & { lost: PipelineMessage[] } {
  const lost: PipelineMessage[] = [];
  return {
    lost,
    send: async (messages) => void lost.push(...messages),
    sendAfterResponse: (messages) => void lost.push(...messages),
    sendOrFail: async (messages) => void lost.push(...messages),
  };
}
