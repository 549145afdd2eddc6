import {
  INDEXED_ID,
  NEAR_CITY,
  NEAR_PAGE_IDS,
  NEAR_TARGETS,
  STRAIGHTFORWARD_ID,
} from "./scale-near-targets.ts";
import type { ScaleReport } from "./scale-report.ts";
import { formatFirstSizeVerdicts, verdictOf } from "./scale-verdicts.ts";

/**
 * The pages near the city at the largest size: each against the same page
 * at the first size, then the animals' page against the same page computed
 * the straightforward way, by requests a second (a median of the rounds'
 * ratios, their spread in brackets) and by D1's rows read for one page.
 */
export function formatNearVerdicts(report: ScaleReport): string[] {
  const largest = report.phases.filter((phase) => phase.axis === "size").at(-1);
  const firstSize = formatFirstSizeVerdicts(
    report,
    `first pages within 50 km of ${NEAR_CITY.city}`,
    NEAR_PAGE_IDS,
    NEAR_TARGETS.firstSize,
  );
  const comparison = largest?.rows
    .find((row) => row.target === INDEXED_ID)
    ?.comparisons.find(({ floor }) => floor === STRAIGHTFORWARD_ID);
  const rowsRead = largest?.nearRowsRead;
  if (!largest || (!comparison && !rowsRead)) return firstSize;
  const throughput = comparison
    ? (() => {
        const { throughput: ratio, throughputBand: band } = comparison;
        const verdict = verdictOf(ratio, band, NEAR_TARGETS.throughput);
        return `  requests a second: ${ratio.toFixed(1)}× (${band.min.toFixed(1)}–${band.max.toFixed(1)}) the straightforward page's ${comparison.floorRequestsPerSecond.toFixed(0)} (target at least ${NEAR_TARGETS.throughput}×): ${verdict}`;
      })()
    : "  requests a second: not compared";
  const read = rowsRead
    ? (() => {
        const share = rowsRead.indexed / Math.max(1, rowsRead.straightforward);
        const verdict = share <= NEAR_TARGETS.rowsRead ? "met" : "missed";
        const count = (n: number) => n.toLocaleString("en-US");
        return `  rows read: ${count(rowsRead.indexed)} against ${count(rowsRead.straightforward)}, ${share.toFixed(4)} (target at most ${NEAR_TARGETS.rowsRead}): ${verdict}`;
      })()
    : "  rows read: not read";
  return [
    ...firstSize,
    "",
    `the animals' page near ${NEAR_CITY.city} at ${largest.animals.toLocaleString("en-US")} animals, indexed against straightforward:`,
    throughput,
    read,
  ];
}
