import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

/** axe-core, run inside the page: the accessibility rules browsers' audits use. */
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

interface AxeViolation {
  id: string;
  impact: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * Runs axe (WCAG 2.0 and 2.1, A and AA) on the page as it is and insists it
 * finds nothing. The page's CSP lets no injected script run, so the page's
 * context must be made with `bypassCSP`: axe is a test's instrument, not
 * the page's.
 */
export async function expectNoAxeViolations(page: Page, name: string): Promise<void> {
  await page.evaluate(await readFile(AXE, "utf8"));
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> };
      }
    ).axe;
    const { violations } = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
      resultTypes: ["violations"],
    });
    return violations.map(({ id, impact, nodes }) => ({
      id,
      impact,
      nodes: nodes.slice(0, 5).map(({ target, failureSummary }) => ({ target, failureSummary })),
    }));
  });
  assert.deepEqual(violations, [], `${name}: ${JSON.stringify(violations, null, 2)}`);
}
