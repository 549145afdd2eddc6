import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import { ApiError } from "../errors.ts";
import { describeError, log } from "../logging.ts";
import {
  confirmRevoke,
  showAccount,
  submitRevokeForm,
  submitRollForm,
} from "./account.handlers.tsx";
import { animalPages } from "./animal-pages.ts";
import { announcesOversizedUpload, UPLOAD_LIMIT, UPLOAD_PATH } from "./animal-photos.handlers.tsx";
import {
  acceptInviteForm,
  renderInvite,
  requireInvite,
  requireSession,
  showCredentialsForm,
  staleCredentialsForm,
  staleInviteForm,
  submitSignInForm,
  submitSignOutForm,
  submitSignUpForm,
} from "./auth.handlers.tsx";
import { requireFormToken } from "./csrf.ts";
import { showKeyForm, submitKeyForm } from "./key-form.handlers.tsx";
import {
  ACCOUNT_PAGE,
  COPY_KEY_SCRIPT,
  COPY_KEY_SCRIPT_ROUTE,
  contentSecurityPolicy,
  forbiddenFormPage,
  messageResponse,
} from "./pages/layout.tsx";
import { type DashboardContext, type DashboardEnv, dashboardReads } from "./session.ts";
import { shelterPages } from "./shelter-pages.ts";
import { webhookPages } from "./webhook-pages.ts";

/**
 * A page is never framed, and tells where a link from it leads only its own
 * origin; the response chain adds nosniff. Every other default of
 * hono/secure-headers is off, so a page carries what it always has.
 */
const pageFraming = secureHeaders({
  crossOriginResourcePolicy: false,
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  referrerPolicy: "same-origin",
  strictTransportSecurity: false,
  xContentTypeOptions: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: "DENY",
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
  removePoweredBy: false,
});

/**
 * The account dashboard: server-rendered HTML forms that need no script (one
 * small script adds a copy button) and no API key. Every successful post
 * answers 303 to a page, so reloading never repeats it. Every post passes an
 * Origin check (hono/csrf) and carries a CSRF token (requireFormToken), tied
 * to the session on signed-in forms and to a pre-session nonce before.
 */
export function dashboardRoutes(): Hono<DashboardEnv> {
  const dashboard = new Hono<DashboardEnv>();
  dashboard.use(
    async function dashboardHeaders(c, next) {
      await next();
      c.res.headers.set("Cache-Control", "no-store");
      // Its own rather than secure-headers': the policy names the origin and an async hash.
      const origin = new URL(c.req.url).origin;
      const photosOrigin = c.get("services").config.publicOrigin ?? origin;
      c.res.headers.set(
        "Content-Security-Policy",
        await contentSecurityPolicy(origin, photosOrigin),
      );
    },
    pageFraming,
    csrf(),
    dashboardReads(),
  );
  dashboard.post("*", formBody);

  dashboard.get("/", (c) => c.redirect(ACCOUNT_PAGE, 303));
  dashboard.get(COPY_KEY_SCRIPT_ROUTE, (c) =>
    c.body(COPY_KEY_SCRIPT, 200, { "Content-Type": "text/javascript; charset=utf-8" }),
  );
  dashboard.get("/sign-up", showCredentialsForm("sign-up"));
  dashboard.post(
    "/sign-up",
    requireFormToken("pre-session", staleCredentialsForm("sign-up")),
    submitSignUpForm,
  );
  dashboard.get("/sign-in", showCredentialsForm("sign-in"));
  dashboard.post(
    "/sign-in",
    requireFormToken("pre-session", staleCredentialsForm("sign-in")),
    submitSignInForm,
  );
  dashboard.get("/signed-out", showCredentialsForm("sign-in", "You have signed out."));
  dashboard.get("/invite/:token", requireInvite(), (c) => renderInvite(c));
  dashboard.post(
    "/invite/:token",
    requireInvite(),
    requireFormToken("pre-session", staleInviteForm),
    acceptInviteForm,
  );

  const signedIn = [requireSession(), requireFormToken("session", forbiddenFormPage)] as const;
  dashboard.get("/account", requireSession(), showAccount);
  dashboard.post("/sign-out", ...signedIn, submitSignOutForm);
  dashboard.get("/keys/new", requireSession(), showKeyForm);
  dashboard.post("/keys", ...signedIn, submitKeyForm);
  dashboard.get("/keys/:hash/revoke", requireSession(), confirmRevoke);
  dashboard.post("/keys/:hash/revoke", ...signedIn, submitRevokeForm);
  dashboard.post("/keys/:hash/roll", ...signedIn, submitRollForm);
  dashboard.route("/webhooks", webhookPages(signedIn));
  dashboard.route("/animals", animalPages(signedIn));
  dashboard.route("/shelters", shelterPages(signedIn));

  dashboard.all("*", (c) =>
    messageResponse(c, 404, "Page not found", "There is no dashboard page at this address."),
  );
  dashboard.onError(handleDashboardError);
  return dashboard;
}

const formLimit = bodyLimit({
  maxSize: 16 * 1024,
  onError: (c) => messageResponse(c, 413, "Form too large", "That form was too large to accept."),
});

const uploadLimit = bodyLimit({
  maxSize: UPLOAD_LIMIT,
  onError: (c) =>
    messageResponse(
      c,
      413,
      "Photo too large",
      "That photo is larger than 5 MiB, the most a photo may be. Go back and send a smaller one.",
    ),
});

/**
 * Reads a posted form once, for the CSRF check and the handler alike. A body
 * over 16 KiB gets a 413 page; one that cannot be read (malformed multipart,
 * or a client that broke off its upload) a 400 page, never a 500.
 *
 * A photo upload may hold 5 MiB and the form's fields. Parsing buffers the
 * whole body, the file is parsed from it and its bytes read once more to be
 * stored, so an upload costs at most about three times its size in memory
 * while it is handled (some 15 MiB of a Worker's 128 MiB); one that
 * announces more than the limit is not read at all (its route says why),
 * and one that does not announce its length is cut off at the limit.
 */
async function formBody(c: DashboardContext, next: () => Promise<void>) {
  if (announcesOversizedUpload(c)) {
    c.set("form", {});
    return next();
  }
  const limit = UPLOAD_PATH.test(c.req.path) ? uploadLimit : formLimit;
  // Errors before the form was read are the body's; later ones belong to the handler.
  let read = false;
  try {
    return await limit(c, async () => {
      c.set("form", await c.req.parseBody({ all: true }));
      read = true;
      await next();
    });
  } catch (error) {
    if (read) throw error;
    return messageResponse(
      c,
      400,
      "Form could not be read",
      "That form arrived incomplete or malformed. Go back, reload the page and try again.",
    );
  }
}

/**
 * Dashboard errors are pages, not JSON: a cross-site post (hono/csrf's 403),
 * a storage service that did not answer (503, logged where it failed), or our
 * own failure.
 */
function handleDashboardError(error: unknown, c: DashboardContext) {
  if (error instanceof HTTPException && error.status === 403) return forbiddenFormPage(c);
  if (error instanceof ApiError && error.code === "unavailable") {
    for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
    const message = "We could not complete that just now. Please try again in a moment.";
    return messageResponse(c, 503, "Briefly unavailable", message);
  }
  log("error", "dashboard error", { requestId: c.get("requestId"), error: describeError(error) });
  const message = "We could not complete that. Please try again in a moment.";
  return messageResponse(c, 500, "Something went wrong", message);
}
