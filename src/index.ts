// Worker entry: the HTTP API and the cron trigger. (The queue handler joins with its capability.)
import { createApp } from "./app";
import { runScheduledImports } from "./catalogue/imports.service";
import { createDb } from "./db";
import type { Bindings } from "./env";

const app = createApp();

export default {
  fetch: app.fetch,
  // Every tick pulls the product feeds whose schedule has come (wrangler.toml [triggers]).
  scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduledImports(createDb(env.DB), new Date(controller.scheduledTime)));
  },
} satisfies ExportedHandler<Bindings>;
