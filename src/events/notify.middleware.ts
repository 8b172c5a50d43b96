// After any successful write through the API or the console, get the events it recorded out to
// the shop without waiting for the cron. One place instead of a line in every route that changes
// state: src/app.ts wraps /api/v1 with it, src/console/app.tsx every signed-in console area. Runs
// after the answer (waitUntil) and costs one indexed read unless events are waiting. It carries the
// publish as the pipeline does (a failed send is logged, and the cron publishes what it missed).
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { carrierPipeline } from "../lib/queue";
import { notifyEvents } from "./publish.service";

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

export const publishEventsAfterWrites = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (READS.has(c.req.method) || c.res.status >= 400) return;
  c.executionCtx.waitUntil(notifyEvents(c.env, carrierPipeline(c.env)));
});
