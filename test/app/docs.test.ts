import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE } from "../helpers/http";

const get = (path: string) => exports.default.fetch(new Request(`${BASE}${path}`));

describe("/docs", () => {
  it("serves interactive documentation of /openapi.json from bundled assets", async () => {
    const page = await get("/docs/");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('url: "/openapi.json"');
    expect(html).toContain('src="./swagger-ui-bundle.js"');
    expect(html).not.toMatch(/https?:\/\/(cdn|unpkg|jsdelivr)/);
    const bundle = await get("/docs/swagger-ui-bundle.js");
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
    expect((await get("/docs/swagger-ui.css")).status).toBe(200);
  });
});
