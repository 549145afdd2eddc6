import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { DashboardEnv } from "./dashboard-env.ts";
import { messageResponse } from "./message-responses.tsx";

const FORM_MAX_BYTES = 16 * 1024;

/**
 * Reads a posted form once, for the CSRF check and the handler alike. A body
 * over 16 KiB gets a 413 page; one that cannot be read (malformed multipart,
 * or a client that broke off its upload) a 400 page, never a 500.
 */
export function formBody(): MiddlewareHandler<DashboardEnv> {
  const limit = bodyLimit({
    maxSize: FORM_MAX_BYTES,
    onError: (c) =>
      messageResponse(c, 413, {
        title: "Form too large",
        message: "That form was too large to accept.",
      }),
  });
  return async function formBody(c, next) {
    // Errors before the form was read are the body's; later ones belong to the handler.
    let read = false;
    try {
      return await limit(c, async () => {
        const form = await c.req.parseBody();
        read = true;
        c.set("form", form);
        await next();
      });
    } catch (error) {
      if (read) throw error;
      return messageResponse(c, 400, {
        title: "Form could not be read",
        message:
          "That form arrived incomplete or malformed. Go back, reload the page and try again.",
      });
    }
  };
}
