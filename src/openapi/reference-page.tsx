import referenceAssets from "../../dist/reference-assets.json" with { type: "json" };

/**
 * What the renderer is told. Fonts, the hosted client and the developer
 * tools would reach other hosts; the page works without them and offline.
 */
const RENDERER_SETTINGS = {
  withDefaultFonts: false,
  hideClientButton: true,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
};

interface ReferencePageProps {
  /** Where the OpenAPI document is served. */
  documentPath: string;
}

/**
 * The browsable API reference: Scalar, served from this Worker's own static
 * assets and configured through data attributes (a JSON element, which no
 * browser runs), so the page needs no inline script and no other host.
 */
export function ReferencePage({ documentPath }: ReferencePageProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Pet Store API reference</title>
      </head>
      <body>
        <noscript>
          <p>
            This reference needs JavaScript. The OpenAPI document it renders is at{" "}
            <a href={documentPath}>{documentPath}</a>.
          </p>
        </noscript>
        <script
          id="api-reference"
          type="application/json"
          data-url={documentPath}
          data-configuration={JSON.stringify(RENDERER_SETTINGS)}
        />
        <script src={referenceAssets.script} />
      </body>
    </html>
  );
}
