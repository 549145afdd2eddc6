import { PlanSchema } from "../rate-limit/plans.ts";

/**
 * How the operator commands take and show a plan's limits: the plans and
 * the `--per-minute` and `--per-day` options a limit-setting subcommand
 * takes, their help, the numbers they give, and limits as a line of text.
 */

/** The plans a limit-setting subcommand takes, as its help lists them. */
export const planChoices = PlanSchema.options.join("|");

/** Options of the subcommands that set limits. */
export const limitOptions = {
  "per-minute": { type: "string" },
  "per-day": { type: "string" },
} as const;

/** Their lines of a subcommand's help. */
export const limitsHelp = `  --per-minute N            enterprise only, required there: requests per minute
  --per-day N               enterprise only, required there: requests per day`;

/**
 * The numbers as typed, as numbers: the admin schema judges them, here
 * (`checkArguments`) and again on the Worker.
 */
export function limitsOf(values: { "per-minute"?: string; "per-day"?: string }) {
  const numberOf = (value: string | undefined) => (value === undefined ? undefined : Number(value));
  return { perMinute: numberOf(values["per-minute"]), perDay: numberOf(values["per-day"]) };
}

const count = (n: number) => n.toLocaleString("en-US");

/** "pro (300/min, 10,000/day)". */
export const limitsText = (limits: { plan: string; perMinute: number; perDay: number }) =>
  `${limits.plan} (${count(limits.perMinute)}/min, ${count(limits.perDay)}/day)`;
