import { defineConfig } from "drizzle-kit";

// drizzle-kit only generates SQL here; wrangler applies it (one migration tracker: wrangler's).
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema/index.ts",
  out: "./drizzle",
});
