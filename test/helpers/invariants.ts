// What a client may rely on for every answer that is not a success: the documented error shapes.
import { expect } from "vitest";

type Answer = { status: number; headers: Headers; json: any; text: string };

// The message each error status carries (Laravel's reason phrases, as app.onError writes them).
const MESSAGES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
};

/**
 * A 4xx in the documented shape: JSON with exactly {message, error} (message naming the status),
 * or for 422 exactly {message: "Errors", errors: {path: [strings]}}. Never a 5xx.
 */
export function expectDocumentedError(res: Answer, label = "") {
  const where = `${label} -> ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, where).toBeGreaterThanOrEqual(400);
  expect(res.status, where).toBeLessThan(500);
  expect(res.headers.get("content-type") ?? "", where).toMatch(/^application\/json/);
  expect(res.json, where).toBeTypeOf("object");
  expect(res.json, where).not.toBeNull();
  if (res.status === 422) {
    expect(Object.keys(res.json).sort(), where).toEqual(["errors", "message"]);
    expect(res.json.message, where).toBe("Errors");
    const errors = res.json.errors;
    expect(errors !== null && typeof errors === "object" && !Array.isArray(errors), where).toBe(true);
    expect(Object.keys(errors).length, where).toBeGreaterThan(0);
    for (const [key, messages] of Object.entries(errors)) {
      expect(key.length, where).toBeGreaterThan(0);
      expect(Array.isArray(messages) && messages.length > 0, where).toBe(true);
      for (const m of messages as unknown[]) expect(typeof m === "string" && m.length > 0, where).toBe(true);
    }
  } else {
    expect(Object.keys(res.json).sort(), where).toEqual(["error", "message"]);
    expect(res.json.message, where).toBe(MESSAGES[res.status]);
    expect(typeof res.json.error === "string" && res.json.error.length > 0, where).toBe(true);
  }
}

/** Any answer: a success, or a documented error. Never a 5xx, never an error that is not JSON. */
export function expectNoServerError(res: Answer, label = "") {
  expect(res.status, `${label} -> ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) expectDocumentedError(res, label);
}

/** The browser face's areas (src/console): they answer in HTML, not in the API's JSON. */
export const isConsolePath = (path: string) => /^\/(console|supplier|operator)(\/|$|\?)/.test(path);

/** Any answer of a console area: a page, a redirect, or a documented error page (HTML with its heading). Never a 5xx. */
export function expectConsoleAnswer(res: Answer, label = "") {
  const where = `${label} -> ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, where).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.headers.get("content-type") ?? "", where).toMatch(/^text\/html/);
    expect(res.text, where).toMatch(/<h1>[^<]+<\/h1>/);
  }
}
