// Values vitest's globalSetup provides to tests (read with inject()).
declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the fake remote server (test/helpers/fake-remote.global.ts). */
    fakeRemoteUrl: string;
    /** Seed of the property-based tests (FUZZ_SEED; fixed by default). */
    fuzzSeed: number;
    /** Multiplier of their run counts (FUZZ_SCALE, at least 1). */
    fuzzScale: number;
  }
}
export {};
