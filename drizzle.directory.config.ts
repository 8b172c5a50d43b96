import { defineConfig } from "drizzle-kit";

// The directory database's schema (binding DIRECTORY, src/shards/directory.schema.ts); the shards'
// schema is drizzle.config.ts's. `npm run db:generate` generates both.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/shards/directory.schema.ts",
  out: "./drizzle-directory",
});
