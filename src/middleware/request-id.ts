import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { createDb } from "../db";

/** Gives every request an id (echoed as X-Request-Id, used in server logs) and the database. */
export const requestContext = createMiddleware<AppEnv>(async (c, next) => {
  const incoming = c.req.header("x-request-id");
  const id = incoming && /^[\w.-]{1,64}$/.test(incoming) ? incoming : crypto.randomUUID();
  c.set("requestId", id);
  c.set("db", createDb(c.env.DB));
  await next();
  c.header("X-Request-Id", id);
});
