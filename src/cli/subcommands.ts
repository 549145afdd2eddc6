import { UsageError } from "./args.ts";

export type Subcommand = (argv: string[]) => Promise<number>;

/** A command made of subcommands (`npm run key -- revoke …`): picks one, or prints the usage. */
export function dispatch(
  usage: string,
  subcommands: Record<string, Subcommand>,
): (argv: string[]) => Promise<number> {
  const names = Object.keys(subcommands).join(", ");
  return async (argv) => {
    const [name, ...rest] = argv;
    if (name === "--help" || name === "-h" || name === "help") {
      console.log(usage);
      return 0;
    }
    if (name === undefined) throw new UsageError(`missing subcommand: ${names}`);
    const subcommand = Object.hasOwn(subcommands, name) ? subcommands[name] : undefined;
    if (!subcommand) throw new UsageError(`unknown subcommand "${name}"; use ${names}`);
    return subcommand(rest);
  };
}
