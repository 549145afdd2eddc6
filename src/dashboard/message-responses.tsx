import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { MessagePage, type MessagePageProps } from "./pages/message-page.tsx";

/** An HTML page that only says something, with the status it goes with. */
export function messageResponse(
  c: Context,
  status: ContentfulStatusCode,
  props: MessagePageProps,
): Response | Promise<Response> {
  return c.html(<MessagePage {...props} />, status);
}

export function notFoundPage(c: Context): Response | Promise<Response> {
  return messageResponse(c, 404, {
    title: "Page not found",
    message: "There is no dashboard page at this address.",
  });
}

export function forbiddenFormPage(c: Context): Response | Promise<Response> {
  return messageResponse(c, 403, {
    title: "This form could not be accepted",
    message:
      "The form was out of date or did not come from this dashboard. Go back, reload the page and try again.",
  });
}
