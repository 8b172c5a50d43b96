// vitest globalSetup: starts the stand-in shops (./harness.ts) for the run and provides their URL.
import type { TestProject } from "vitest/node";
import { startStandIns, type StandInPlatform } from "./harness";
import { woocommerceStandIn } from "./woocommerce";

// One import and one entry per platform, added with its stand-in.
export const platforms: StandInPlatform[] = [
  woocommerceStandIn,
];

export default async function setup(project: TestProject) {
  const standIns = await startStandIns(platforms);
  project.provide("standInShopsUrl", standIns.url);
  return standIns.close;
}
