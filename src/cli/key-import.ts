import type { AdminClient } from "./admin-client.ts";
import { expectPositionals, parseCommand } from "./args.ts";
import { projectRoot } from "./project.ts";
import { connect, targetHelp, targetOf, targetOptions } from "./worker-target.ts";

export const importHelp = `Usage: npm run key -- import [options]

Brings keys that exist only in KV (made by the operator command before D1 held
keys) into D1, under their accounts, and rewrites their KV records; none of
them stops working. Safe to repeat. \`npm start\` runs it locally by itself;
run it once for staging and production after deploying:
  ADMIN_TOKEN=… npm run key -- import --env staging

${targetHelp}`;

interface ImportPage {
  imported: number;
  rewritten: number;
  cursor: string | null;
}

export interface ImportTotals {
  imported: number;
  rewritten: number;
}

/** Asks the Worker for page after page of the import until it says it is done. */
export async function importLegacyKeys(worker: AdminClient): Promise<ImportTotals> {
  const totals = { imported: 0, rewritten: 0 };
  let cursor: string | undefined;
  do {
    const page: ImportPage = await worker.call<ImportPage>({
      method: "POST",
      path: "/admin/keys/import",
      body: cursor === undefined ? {} : { cursor },
    });
    totals.imported += page.imported;
    totals.rewritten += page.rewritten;
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined);
  return totals;
}

/** One line on what the import did. */
export function importReport(totals: ImportTotals, origin: string): string {
  if (totals.imported + totals.rewritten === 0) {
    return `Nothing to import at ${origin}: no key exists only in KV.`;
  }
  const rewritten =
    totals.rewritten > 0
      ? `; rewrote the old KV records of ${totals.rewritten} key(s) D1 already held`
      : "";
  return `Imported ${totals.imported} key(s) that existed only in KV into D1 at ${origin}${rewritten}.`;
}

export async function importCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, targetOptions);
  if (values.help) {
    console.log(importHelp);
    return 0;
  }
  expectPositionals(positionals, []);
  const worker = await connect(targetOf(values), projectRoot());
  console.log(importReport(await importLegacyKeys(worker), worker.origin));
  return 0;
}
