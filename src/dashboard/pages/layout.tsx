import type { Child } from "hono/jsx";
import { CSRF_FIELD } from "../csrf.ts";

const STYLES = `
body{font-family:system-ui,sans-serif;max-width:52rem;margin:0 auto;padding:1rem;line-height:1.5;color:#1b1b1b}
header{display:flex;justify-content:space-between;align-items:center;border-bottom:1px solid #ddd;margin-bottom:1rem}
header form{display:inline}
label{display:block;font-weight:600;margin-top:.75rem}
input[type=email],input[type=password]{display:block;width:100%;max-width:24rem;padding:.4rem;font-size:1rem}
button{padding:.4rem .9rem;font-size:1rem;margin-top:.75rem;cursor:pointer}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem;border-bottom:1px solid #eee;vertical-align:top}
td form{display:inline;margin-right:.4rem}
td button{margin-top:0}
.error{color:#a40000;margin:.25rem 0}
.hint{color:#555;margin:.1rem 0;font-size:.9rem}
.notice{background:#eef6ee;border:1px solid #9c9;padding:.6rem}
.new-key{background:#fffbe6;border:1px solid #e6c200;padding:.8rem;margin:1rem 0}
.new-key input{font-family:ui-monospace,monospace;font-size:1rem;width:100%;max-width:30rem;padding:.4rem}
code{font-family:ui-monospace,monospace}
`;

export interface LayoutProps {
  title: string;
  /** Shown with a sign-out button when someone is signed in. */
  signedIn?: { email: string; csrf: string };
  children?: Child;
}

/** Every dashboard page: plain HTML and one inline style sheet, no scripts. */
export function Layout({ title, signedIn, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Pet Store dashboard`}</title>
        <style>{STYLES}</style>
      </head>
      <body>
        <header>
          <p>
            <strong>Pet Store dashboard</strong>
          </p>
          {signedIn && (
            <div>
              {signedIn.email}{" "}
              <form method="post" action="/dashboard/sign-out">
                <input type="hidden" name={CSRF_FIELD} value={signedIn.csrf} />
                <button type="submit">Sign out</button>
              </form>
            </div>
          )}
        </header>
        <main>
          <h1>{title}</h1>
          {children}
        </main>
      </body>
    </html>
  );
}
