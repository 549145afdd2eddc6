import type { ScaleReport } from "./scale-report.ts";

/**
 * How a scale run's ratios read against their targets: met, within the
 * rounds' spread of it, or missed.
 */

/** A median ratio against its target: met, "within noise" when only the spread reaches it, or missed. */
export function verdictOf(
  ratio: number,
  band: { min: number; max: number },
  target: number,
  at: "least" | "most" = "least",
): string {
  const reaches = (value: number) => (at === "least" ? value >= target : value <= target);
  if (reaches(ratio)) return "met";
  return reaches(at === "least" ? band.max : band.min) ? "within noise" : "missed";
}

/**
 * Each of these targets' first page at the largest size against the same
 * page at the first (its first comparison), held to `target`, under a
 * heading naming what they are.
 */
export function formatFirstSizeVerdicts(
  report: ScaleReport,
  what: string,
  ids: readonly string[],
  target: number,
): string[] {
  const largest = report.phases.filter((phase) => phase.axis === "size").at(-1);
  const [first] = report.settings.sizes;
  const rows = ids.flatMap((id) => largest?.rows.find((row) => row.target === id) ?? []);
  if (!largest || first === undefined || rows.length === 0) return [];
  const sizes = `${largest.animals.toLocaleString("en-US")} against ${first.toLocaleString("en-US")} animals`;
  return [
    "",
    `${what}, ${sizes} (target ${target}):`,
    ...rows.map((row) => {
      const comparison = row.comparisons.find(({ floor }) => floor === `first-size-${row.target}`);
      if (!comparison) return `  ${row.label}: not compared`;
      const { throughput, throughputBand: band } = comparison;
      return `  ${row.label}: ${throughput.toFixed(2)} (${band.min.toFixed(2)}–${band.max.toFixed(2)}) ${verdictOf(throughput, band, target)}`;
    }),
  ];
}
