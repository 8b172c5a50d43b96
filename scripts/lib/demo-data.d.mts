// Types of demo-data.mjs for the TypeScript tests that use it.
export type DemoReferences = {
  ruled: string;
  completed: string;
  answered: string;
  pending: string;
  blocked: string;
  failed: string;
  test: string;
  awaitingPickup: string;
};
export function seedDemo(
  base: string,
  creds: { accountId: number; apiKey: string },
): Promise<{ supplierKey: string; supplierName: string; references: DemoReferences; feedId: number; webhookId: number }>;
