// Worker entry: the HTTP API. (Queue and cron handlers join as their capabilities land.)
import { createApp } from "./app";
import type { Bindings } from "./env";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Bindings>;
