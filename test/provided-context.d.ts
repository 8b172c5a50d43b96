// Values vitest's globalSetup provides to tests (read with inject()).
declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the fake remote server (test/helpers/fake-remote.global.ts). */
    fakeRemoteUrl: string;
  }
}
export {};
