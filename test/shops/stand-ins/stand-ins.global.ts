// vitest globalSetup: starts the stand-in shops (./harness.ts) for the run and provides their URL.
import type { TestProject } from "vitest/node";
import { startStandIns, type StandInPlatform } from "./harness";
import { magentoStandIn } from "./magento";
import { prestashopStandIn } from "./prestashop";
import { shopware } from "./shopware";
import { shopifyStandIn } from "./shopify";
import { woocommerceStandIn } from "./woocommerce";

// One import and one entry per platform, added with its stand-in.
export const platforms: StandInPlatform[] = [
  woocommerceStandIn,
  shopware,
  magentoStandIn as StandInPlatform,
  prestashopStandIn as StandInPlatform,
  shopifyStandIn as StandInPlatform,
];

export default async function setup(project: TestProject) {
  const standIns = await startStandIns(platforms);
  project.provide("standInShopsUrl", standIns.url);
  return standIns.close;
}
