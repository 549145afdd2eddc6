import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { Layout } from "./pages/layout.tsx";

/** An HTML page that only says something (not found, forbidden, an error), with the status it goes with. */
export function messageResponse(
  c: Context,
  status: ContentfulStatusCode,
  title: string,
  message: string,
  link = { href: "/dashboard", text: "Go to the dashboard" },
): Response | Promise<Response> {
  const page = (
    <Layout title={title}>
      <p>{message}</p>
      <p>
        <a href={link.href}>{link.text}</a>
      </p>
    </Layout>
  );
  return c.html(page, status);
}

export function forbiddenFormPage(c: Context): Response | Promise<Response> {
  return messageResponse(
    c,
    403,
    "This form could not be accepted",
    "The form was out of date or did not come from this dashboard. Go back, reload the page and try again.",
  );
}
