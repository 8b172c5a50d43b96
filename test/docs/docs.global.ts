// Global setup of the docs suite: the real Worker over HTTP (test/browser/worker.ts) with the demo
// account `npm start` creates (the same scripts/lib/demo-data.mjs), so the README's and docs/'s
// curl examples run against what a newcomer has after `npm start`.
import type { TestProject } from "vitest/node";
import { seedDemo } from "../../scripts/lib/demo-data.mjs";
import { startLocalWorker } from "../browser/worker";
import { startDemoShop } from "../shops/stand-ins/demo";

export default async function setup(project: TestProject) {
  const started = Date.now();
  const worker = await startLocalWorker();
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${worker.url}/admin/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${worker.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: number; api_key: string };
  };
  // As scripts/start.mjs does on a first run.
  const account = await admin("/accounts", { name: "Demo shop" });
  const key = await admin(`/accounts/${account.id}/api-keys`, { name: "demo" });
  const demo = await seedDemo(worker.url, { accountId: account.id, apiKey: key.api_key });
  // And its shop, as scripts/start.mjs starts it (scripts/lib/demo-shop.mjs).
  const demoShop = await startDemoShop({ base: worker.url, accountId: account.id, apiKey: key.api_key, supplierKey: demo.supplierKey });

  project.provide("docsUrl", worker.url);
  project.provide("docsAdminToken", worker.adminToken);
  project.provide("docsCredentials", { account_id: account.id, api_key: key.api_key, supplier_key: demo.supplierKey, supplier_name: demo.supplierName });
  console.log(`docs suite: Worker on ${worker.url} with the demo account ready in ${Date.now() - started} ms`);
  return async () => {
    await demoShop.close();
    await worker.dispose();
  };
}
