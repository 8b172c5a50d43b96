// The gate for every endpoint, now and later: each operation, parameter and request-body property
// of /openapi.json says what it is, each credential where it comes from, and no query parameter
// pre-fills a filter in the docs' "Try it out".
import { describe, expect, it } from "vitest";
import { call } from "../helpers/http";

type Schema = Record<string, any>;

async function documentOf() {
  const res = await call("GET", "/openapi.json");
  expect(res.status).toBe(200);
  return res.json as { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Schema> } };
}

const described = (s: Schema | undefined) => typeof s?.description === "string" && s.description.trim().length > 0;

/** Every property (nested, in arrays and unions) of a schema without a description, by its path. */
function undescribed(doc: Awaited<ReturnType<typeof documentOf>>, schema: Schema, at: string, seen = new Set<string>()): string[] {
  const resolve = (s: Schema): Schema => (s?.$ref ? doc.components.schemas[s.$ref.replace("#/components/schemas/", "")] : s);
  if (schema?.$ref) {
    if (seen.has(schema.$ref)) return [];
    seen = new Set([...seen, schema.$ref]);
  }
  const s = resolve(schema);
  if (!s) return [`${at} (unresolved ${schema.$ref})`];
  const out: string[] = [];
  for (const [name, property] of Object.entries<Schema>(s.properties ?? {})) {
    // A described reference comes as allOf: [{$ref}, {description}] (zod-to-openapi's way).
    const says = described(property) || described(resolve(property)) || (property.allOf ?? []).some(described);
    if (!says) out.push(`${at}.${name}`);
    out.push(...undescribed(doc, property, `${at}.${name}`, seen));
  }
  if (s.items) out.push(...undescribed(doc, s.items, `${at}[]`, seen));
  for (const member of [...(s.oneOf ?? []), ...(s.anyOf ?? []), ...(s.allOf ?? [])]) out.push(...undescribed(doc, member, at, seen));
  return out;
}

describe("the OpenAPI document describes everything a client sends", () => {
  it("every operation, parameter and request-body property has a description", async () => {
    const doc = await documentOf();
    const offenders: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (!described(op)) offenders.push(`${where}: the operation`);
        for (const p of op.parameters ?? []) {
          if (!described(p) && !described(p.schema)) offenders.push(`${where}: ${p.in} parameter ${p.name}`);
        }
        for (const [type, media] of Object.entries<Schema>(op.requestBody?.content ?? {})) {
          offenders.push(...undescribed(doc, media.schema, `body`).map((field) => `${where}: ${type} ${field}`));
        }
      }
    }
    expect(offenders, `Describe these in their schemas (.openapi({ description })):\n${offenders.join("\n")}`).toEqual([]);
  });

  it("no query parameter pre-fills a filter: no examples, and a default only where it is what the API does anyway", async () => {
    const doc = await documentOf();
    const offenders: string[] = [];
    const defaults: Record<string, unknown> = {};
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        for (const p of op.parameters ?? []) {
          if (p.in !== "query") continue;
          if (p.example !== undefined || p.examples !== undefined || p.schema?.example !== undefined || p.schema?.examples !== undefined) {
            offenders.push(`${method.toUpperCase()} ${path}: ${p.name}`);
          }
          if (p.schema?.default !== undefined) defaults[p.name] = p.schema.default;
        }
      }
    }
    expect(offenders, `Query parameters with an example:\n${offenders.join("\n")}`).toEqual([]);
    // The defaults the docs show are the API's own: the first page, 50 per page, test orders left out.
    expect(defaults).toEqual({ page: 1, per_page: 50, include_test: "false" });
  });

  it("the Authorize dialog says where each credential comes from", async () => {
    const doc = await documentOf();
    const schemes = doc.components.securitySchemes;
    expect(Object.keys(schemes).sort()).toEqual(["AccountId", "AdminToken", "ApiKey", "SupplierKey"]);
    expect(schemes.ApiKey.description).toMatch(/npm start/);
    expect(schemes.ApiKey.description).toMatch(/POST \/admin\/v1\/accounts\/\{id\}\/api-keys/);
    expect(schemes.AccountId.description).toMatch(/npm start/);
    expect(schemes.AdminToken.description).toMatch(/\.dev\.vars/);
    expect(schemes.AdminToken.description).toMatch(/wrangler secret put ADMIN_TOKEN/);
    expect(schemes.SupplierKey.description).toMatch(/POST \/api\/v1\/suppliers\/\{id\}\/keys/);
  });
});
