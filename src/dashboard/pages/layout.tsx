import type { Context } from "hono";
import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { DASHBOARD_PATH } from "../../api/public-paths.ts";
import { toBase64 } from "../../utils/base64url.ts";
import { sha256 } from "../../utils/sha256.ts";
import { CSRF_FIELD } from "../csrf.ts";

/** The dashboard's one script: its route below /dashboard, and its path, which the pages' CSP names alone. */
export const COPY_KEY_SCRIPT_ROUTE = "/copy-key.js";
export const COPY_KEY_SCRIPT_PATH = `${DASHBOARD_PATH}${COPY_KEY_SCRIPT_ROUTE}`;

/** Where the dashboard sends a signed-in user: the account's page. */
export const ACCOUNT_PAGE = `${DASHBOARD_PATH}/account`;

/**
 * Adds a working "Copy" button beside a new key. Without it the page still
 * works: the key sits in a read-only field to select and copy, and the button
 * stays hidden, so nobody meets a button that does nothing.
 */
export const COPY_KEY_SCRIPT = `"use strict";
for (const button of document.querySelectorAll("button[data-copy-from]")) {
  const field = document.getElementById(button.dataset.copyFrom);
  const status = document.getElementById(button.dataset.copyStatus);
  if (!field || !status) continue;
  button.hidden = false;
  button.addEventListener("click", async () => {
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      status.textContent = "Copied to the clipboard.";
    } catch {
      status.textContent = "Press Ctrl+C (or ⌘C on a Mac) to copy the selected key.";
    }
  });
}
`;

/** Our own constant, emitted verbatim: escaped as text, a child selector (">") or a quoted string would break. */
const STYLES = `
:root{--ink:#1b1b1b;--muted:#595959;--line:#d9d9d9;--accent:#1d4ed8;--danger:#b42318;--paper:#fff;--focus:#1e3a8a}
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;max-width:72rem;margin:0 auto;padding:0 1rem 2rem;line-height:1.5;color:var(--ink);background:var(--paper)}
[hidden]{display:none!important}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
main:focus{outline:none}
.skip{position:absolute;left:1rem;top:-10rem;padding:.5rem .9rem;background:var(--paper);color:var(--accent);border:2px solid var(--accent);border-radius:4px;z-index:1}
.skip:focus{top:.5rem}
header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;justify-content:space-between;align-items:center;border-bottom:1px solid var(--line);padding:.75rem 0;margin-bottom:1rem}
header p{margin:0}
.who{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;color:var(--muted);overflow-wrap:anywhere;min-width:0}
h1{font-size:1.6rem;margin:.5rem 0 1rem}
h2{font-size:1.2rem;margin:1.75rem 0 .5rem}
form{margin:0}
label{display:block;font-weight:600;margin-top:.75rem}
input[type=email],input[type=password],input[type=text],input[type=url],input[type=search],input[type=number],input[type=datetime-local],input[type=file],select,textarea{display:block;width:100%;max-width:36rem;padding:.45rem .5rem;font:inherit;border:1px solid #767676;border-radius:4px;background:var(--paper);color:var(--ink)}
textarea{font-family:ui-monospace,monospace}
button,.button{display:inline-block;padding:.45rem .9rem;font:inherit;font-size:.95rem;line-height:1.25;border:1px solid var(--accent);border-radius:4px;background:var(--accent);color:#fff;text-decoration:none;cursor:pointer;white-space:nowrap}
button:hover,.button:hover{filter:brightness(1.1)}
.secondary{background:var(--paper);color:var(--accent)}
.danger{border-color:var(--danger);background:var(--danger);color:#fff}
.secondary.danger{background:var(--paper);color:var(--danger)}
form div+button,.stacked>.actions,.stacked>button{margin-top:1rem}
.actions{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem}
.muted{color:var(--muted)}
.hint{color:var(--muted);margin:.1rem 0 .3rem;font-size:.9rem;font-weight:400}
.error{color:var(--danger);margin:.25rem 0}
ul.error{padding-left:1.25rem}
.notice{background:#eef6ee;border:1px solid #9c9;border-radius:4px;padding:.6rem .8rem;overflow-wrap:anywhere}
.new-key{background:#fffbe6;border:1px solid #e6c200;border-radius:4px;padding:.8rem;margin:1rem 0}
.new-key label{margin-top:0}
.copy-row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:stretch;max-width:44rem}
.copy-row input{font-family:ui-monospace,monospace;max-width:none;flex:1 1 20rem;min-width:0}
fieldset{border:0;padding:0;margin:1.25rem 0 0;min-width:0}
legend{font-weight:600;padding:0}
.choice{display:flex;gap:.5rem;align-items:flex-start;margin:.35rem 0}
.choice input{margin:.3rem 0 0;width:1.1rem;height:1.1rem;flex:none}
.choice label{margin:0;font-weight:400}
.choice .detail{display:block;color:var(--muted);font-size:.9rem}
.inline-choices{display:flex;flex-wrap:wrap;gap:0 1.25rem}
.choice-group{margin:.5rem 0 .75rem}
.choice-group .choice+.choice{margin-left:1.6rem}
code{font-family:ui-monospace,monospace;overflow-wrap:anywhere}
.url code{overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.9rem;color:var(--muted);font-weight:600;white-space:nowrap}
.nowrap{white-space:nowrap}
td .actions{flex-wrap:nowrap}
ol.attempts{margin:0;padding-left:1.25rem}
.pages{margin:.75rem 0}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(19rem,100%),1fr));gap:1rem 2rem;margin:1rem 0}
.chart{margin:0}
.chart figcaption{font-weight:600}
.chart svg{display:block;width:100%;height:auto}
.chart p{margin:.25rem 0;font-size:.9rem}
.chart text{font-size:12px;fill:#595959}
.chart .axis-title{font-size:11px}
.chart .tick line{stroke:#e3e3e3}
.chart .axis{stroke:#8c8c8c}
.chart .bar{fill:var(--accent)}
.numbers{font-size:.9rem;max-width:24rem}
.numbers td,.numbers th{padding:.2rem .5rem}
summary{cursor:pointer}
.key-usage{border-top:1px solid var(--line);padding:.5rem 0}
.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.25rem 1rem}
.facts dt{font-weight:600}
.facts dd{margin:0;overflow-wrap:anywhere}
.thumbs{display:grid;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr));gap:1rem;list-style:none;padding:0;margin:.5rem 0}
.thumbs figure{margin:0}
.thumbs img{display:block;width:100%;aspect-ratio:1;object-fit:cover;border:1px solid var(--line);border-radius:4px;background:#f3f3f3}
.thumbs figcaption{margin-top:.35rem}
.preview{display:block;max-width:100%;height:auto;border:1px solid var(--line);border-radius:4px}
.description{white-space:pre-line}
textarea#description{font-family:inherit}
details{margin:.75rem 0}
.finders{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(14rem,100%),1fr));gap:0 1rem;max-width:60rem}
.refused{background:#fdf0ef;border:1px solid var(--danger);border-radius:4px;padding:.6rem .8rem}
@media (max-width:56rem){
table.cards thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
table.cards,table.cards tbody,table.cards tr,table.cards td{display:block;width:100%}
table.cards tr{border:1px solid var(--line);border-radius:6px;padding:.5rem .75rem;margin-bottom:.75rem}
table.cards td{display:flex;gap:.75rem;border:0;padding:.2rem 0;white-space:normal;overflow-wrap:anywhere}
table.cards td::before{content:attr(data-label);flex:0 0 7rem;font-weight:600;color:var(--muted);overflow-wrap:normal}
table.cards td>*{min-width:0}
td .actions{flex-wrap:wrap}
}
@media (max-width:30rem){
.facts{grid-template-columns:minmax(0,1fr)}
.facts dd{margin-bottom:.5rem}
}
`;

/** The style sheet's CSP source; kept once found (a value, not a promise, may outlive a request). */
let stylesSource: string | undefined;

/**
 * Nothing loads from elsewhere but the animals' photos (from where their
 * public addresses point), the one script that may run is the
 * dashboard's own copy button (by its full address, so no other same-origin
 * script passes), the one style sheet is the pages' own (by its hash), forms
 * post only here, and no page is framed.
 */
export async function contentSecurityPolicy(origin: string, photosOrigin: string): Promise<string> {
  stylesSource ??= `'sha256-${toBase64(await sha256(STYLES))}'`;
  return [
    "default-src 'none'",
    `img-src ${photosOrigin}`,
    `script-src ${origin}${COPY_KEY_SCRIPT_PATH}`,
    `style-src ${stylesSource}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

interface LayoutProps {
  title: string;
  /** Shown with a sign-out button when someone is signed in. */
  signedIn?: { email: string; csrf: string };
  children?: Child;
}

/** Every dashboard page: plain HTML and one inline style sheet; a page that needs a script adds it. */
export function Layout({ title, signedIn, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Pet Store dashboard`}</title>
        <style>{raw(STYLES)}</style>
      </head>
      <body>
        <a class="skip" href="#content">
          Skip to content
        </a>
        <header>
          <p>
            <strong>Pet Store dashboard</strong>
          </p>
          {signedIn && (
            <div class="who">
              <span>{signedIn.email}</span>
              <form method="post" action="/dashboard/sign-out">
                <input type="hidden" name={CSRF_FIELD} value={signedIn.csrf} />
                <button type="submit" class="secondary">
                  Sign out
                </button>
              </form>
            </div>
          )}
        </header>
        <main id="content" tabindex={-1}>
          <h1>{title}</h1>
          {children}
        </main>
      </body>
    </html>
  );
}

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

/** A table's head: one column heading per name, in order. */
export function ColumnHeads(props: { names: readonly string[] }) {
  return (
    <thead>
      <tr>
        {props.names.map((name) => (
          <th scope="col">{name}</th>
        ))}
      </tr>
    </thead>
  );
}
