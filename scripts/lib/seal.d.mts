/** Seals `plaintext` as the Worker does under `secretsKey`, bound to `boundTo` (scripts/lib/seal.mjs). */
export function sealForWorker(secretsKey: string, plaintext: string, boundTo: string): string;
