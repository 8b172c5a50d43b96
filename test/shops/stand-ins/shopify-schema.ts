// Shopify's Admin GraphQL schema, as Shopify publishes it, for the stand-in to hold every request to.
//
// Where it comes from: Shopify's own npm package @shopify/dev-mcp ships the Admin API's
// introspection result for every supported version (dist/data/admin_<version>.json.gz, the same
// data as shopify.dev's published schema). That package brings a large tree of dependencies (the
// Shopify CLI, Hydrogen, React Router) that this project does not want, so it is not a dependency:
// its tarball alone is fetched with the ordinary npm client (`npm pack`, the registry the project
// already uses), the one file is taken out, checked against the digest below, and kept in
// node_modules/.cache/ (never committed). A changed file fails loudly instead of drifting.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from "graphql";

/** The version the adapter targets (src/shops/platforms/shopify/client.ts SHOPIFY_API_VERSION). */
export const SCHEMA_VERSION = "2026-10";
const PACKAGE = "@shopify/dev-mcp@1.16.0";
const MEMBER = `package/dist/data/admin_${SCHEMA_VERSION}.json.gz`;
const SHA256 = "f3b522f264556925eada700e795e4a002a9cba83444ebcc6c0d724254a0c6593";

/** The project's node_modules: found upwards, as this file also runs bundled into .wrangler/ by `npm start`'s demo (scripts/lib/demo-shop.mjs). */
function nodeModules(): string {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", "graphql"))) return join(dir, "node_modules");
    if (dirname(dir) === dir) throw new Error(`no node_modules with graphql above ${import.meta.dirname}`);
  }
}
const cacheDir = join(nodeModules(), ".cache", "shopify-admin-schema");
const cached = join(cacheDir, `admin_${SCHEMA_VERSION}.json.gz`);

function fetchSchemaFile(): Buffer {
  if (existsSync(cached)) return readFileSync(cached);
  const work = mkdtempSync(join(tmpdir(), "shopify-schema-"));
  try {
    const file = execFileSync("npm", ["pack", PACKAGE, "--silent"], { cwd: work, encoding: "utf8" }).trim().split("\n").pop()!;
    execFileSync("tar", ["-xzf", file, MEMBER], { cwd: work });
    const data = readFileSync(join(work, MEMBER));
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(cached, data);
    return data;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

let schema: GraphQLSchema | null = null;

/** The Admin API schema of SCHEMA_VERSION (fetched once per machine, then read from the cache). */
export function shopifyAdminSchema(): GraphQLSchema {
  if (schema) return schema;
  const gz = fetchSchemaFile();
  const digest = createHash("sha256").update(gz).digest("hex");
  if (digest !== SHA256) throw new Error(`Shopify's Admin schema ${SCHEMA_VERSION} from ${PACKAGE} is not the one pinned (sha256 ${digest}): remove ${cached} and look`);
  const introspection = JSON.parse(gunzipSync(gz).toString("utf8")) as { data: IntrospectionQuery };
  schema = buildClientSchema(introspection.data);
  return schema;
}
