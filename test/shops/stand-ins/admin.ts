// The stand-in shops' admin paths (./harness.ts) from a test outside workerd (the browser suite):
// POST with a body, GET without; 204 answers null.
export function standInAdmin(url: string) {
  return async (path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, { method: body === undefined ? "GET" : "POST", body: body === undefined ? undefined : JSON.stringify(body) });
    return res.status === 204 ? null : res.json();
  };
}
