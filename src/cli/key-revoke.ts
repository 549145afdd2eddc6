import type { KeySummary } from "../admin/admin.schemas.ts";
import { hashApiKey } from "../keys/key-format.ts";
import { expectPositionals, parseCommand, parseKey } from "./args.ts";
import { keyName } from "./describe.ts";
import { projectRoot } from "./project.ts";
import { connect, targetHelp, targetOf, targetOptions } from "./worker-target.ts";

export const revokeHelp = `Usage: npm run key -- revoke <key> [options]

Revokes the key for good: the very next request with it gets 401. Only the
key's SHA-256 is sent. Revoking a revoked key again changes nothing.

${targetHelp}`;

export async function revokeCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, targetOptions);
  if (values.help) {
    console.log(revokeHelp);
    return 0;
  }
  const [key = ""] = expectPositionals(positionals, ["key"]);
  const hash = await hashApiKey(parseKey(key));
  const worker = await connect(targetOf(values), projectRoot());

  const revoked = await worker.call<KeySummary>({
    method: "POST",
    path: `/admin/keys/${hash}/revoke`,
    notFound: "no key has this value",
  });
  console.log(`Revoked the ${keyName(revoked)} at ${worker.origin}: its next request gets 401.`);
  return 0;
}
