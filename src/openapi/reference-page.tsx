import referenceAssets from "../../dist/reference-assets.json" with { type: "json" };

/**
 * The renderer's theme, adjusted so that text meets WCAG AA contrast (4.5:1)
 * on its backgrounds: its greys and method colours are darker in light mode
 * and lighter in dark mode (the doubled class outranks the theme's own
 * rules). Its copy buttons name themselves only while their code block has
 * the pointer or focus; their label for screen readers is shown always.
 */
const ACCESSIBLE_THEME = `
.light-mode.light-mode {
  --scalar-color-2: #5c5c5c;
  --scalar-color-3: #6e6e6e;
  --scalar-color-green: #00774b;
  --scalar-color-red: #c80000;
  --scalar-color-yellow: #7f6200;
  --scalar-color-blue: #0069ad;
  --scalar-color-orange: #b34700;
}
.dark-mode.dark-mode {
  --scalar-color-3: #8f8f8f;
  --scalar-color-red: #ff4d4d;
}
.scalar-code-copy .sr-only .hidden {
  display: inline;
}`;

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
  customCss: ACCESSIBLE_THEME,
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
