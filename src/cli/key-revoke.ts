import { expectPositionals, parseCommand } from "./args.ts";
import { locationHelp, locationOf, locationOptions } from "./key-location.ts";
import { notifyHelp, updateKey } from "./key-update.ts";

export const revokeHelp = `Usage: npm run key -- revoke <key> [options]

Revokes the key: its KV record is marked revoked, and the running Worker is told
so the very next request with it gets 401.

${notifyHelp}
${locationHelp}`;

export async function revokeCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    ...locationOptions,
    url: { type: "string" },
  });
  if (values.help) {
    console.log(revokeHelp);
    return 0;
  }
  const [key = ""] = expectPositionals(positionals, ["key"]);
  return updateKey({
    key,
    location: locationOf(values),
    url: values.url,
    change: (record) => ({ ...record, revoked: true }),
    done: "Revoked",
  });
}
