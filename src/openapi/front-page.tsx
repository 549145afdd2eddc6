/** Room to breathe on a phone (390 px and up) without a stylesheet to fetch. */
const STYLE =
  "body{margin:0 auto;max-width:40rem;padding:1.5rem;font-family:system-ui,sans-serif;line-height:1.5;overflow-wrap:anywhere}li{margin-bottom:.75rem}";

interface FrontPageProps {
  /** Where the browsable reference is. */
  docsPath: string;
  /** Where the OpenAPI document is served. */
  documentPath: string;
  /** Where accounts and their keys are managed. */
  dashboardPath: string;
}

/** What `/` shows: where to read about the API, fetch its description, and get a key. No script. */
export function FrontPage({ docsPath, documentPath, dashboardPath }: FrontPageProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Pet Store API</title>
        {/* No icon to fetch: the browser would ask for /favicon.ico and log its 404. */}
        <link rel="icon" href="data:," />
        <style>{STYLE}</style>
      </head>
      <body>
        <main>
          <h1>Pet Store API</h1>
          <p>
            Browse and manage animals available for adoption, adopt them through store orders, and
            follow every change through an event feed or webhooks.
          </p>
          <ul>
            <li>
              <a href={docsPath}>API reference</a>: every operation, with its parameters, replies
              and examples.
            </li>
            <li>
              <a href={documentPath}>OpenAPI document</a> (OpenAPI 3.1), to generate a client.
            </li>
            <li>
              <a href={dashboardPath}>Dashboard</a>: sign up, make API keys, and follow your usage
              and webhooks.
            </li>
          </ul>
        </main>
      </body>
    </html>
  );
}
