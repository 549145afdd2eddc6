/** A measured value at one x, with the spread of its rounds drawn as a bar. */
export interface ChartPoint {
  x: number;
  y: number;
  low: number;
  high: number;
}

export interface ChartSeries {
  label: string;
  points: ChartPoint[];
}

/**
 * A floor: its value at each x where it was measured, drawn as a dashed line
 * through them, so a floor that moved between phases shows the machine's
 * drift beside the series; one measured at a single x spans the axis.
 */
export interface ReferenceLine {
  label: string;
  points: { x: number; y: number }[];
}

export interface ChartPanel {
  title: string;
  xLabel: string;
  yLabel: string;
  series: ChartSeries[];
  references: ReferenceLine[];
}

const PANEL_WIDTH = 620;
const PLOT = { left: 72, right: 24, top: 44, height: 250 };
const LEGEND_LINE = 17;
/** Keeps points at the ends of the x axis off the y axis. */
const X_INSET = 28;
/** Sideways offset between series, so round bars at the same x do not hide each other. */
const DODGE = 4;
const SERIES_COLOURS = ["#1f6fb4", "#d62728", "#2b9a2b", "#8a4fbf", "#e07b00", "#7a4b3a"];
const REFERENCE_STYLES = [
  { colour: "#444444", dash: "8 4" },
  { colour: "#8c8c8c", dash: "3 3" },
  { colour: "#b07aa1", dash: "12 4 3 4" },
];

function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

const round = (value: number) => Number(value.toFixed(1));

function text(x: number, y: number, content: string, attributes = ""): string {
  return `<text x="${round(x)}" y="${round(y)}"${attributes ? ` ${attributes}` : ""}>${escapeXml(content)}</text>`;
}

/** 1, 10, 100, 1k, 10k, 100k, 1M: decades as people say them. */
export function decadeLabel(value: number): string {
  if (value >= 1_000_000) return `${value / 1_000_000}M`;
  if (value >= 1_000) return `${value / 1_000}k`;
  return String(value);
}

/** Whole decades around the data; one decade either side of a single value. */
function logDomain(xs: number[]): [number, number] {
  const positive = xs.filter((x) => x > 0);
  if (positive.length === 0) return [1, 10];
  let low = Math.floor(Math.log10(Math.min(...positive)));
  let high = Math.ceil(Math.log10(Math.max(...positive)));
  if (low === high) {
    low -= 1;
    high += 1;
  }
  return [low, high];
}

/** A round step (1, 2 or 5 times a power of ten) giving about five ticks up to max. */
function niceStep(max: number): number {
  const rough = max / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough);
  return step ?? 10 * power;
}

function formatTick(value: number, step: number): string {
  const decimals = step >= 1 ? 0 : Math.min(3, Math.ceil(-Math.log10(step)));
  return value.toLocaleString("en-US", {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  });
}

function legendLines(panel: ChartPanel): number {
  return panel.series.length + panel.references.length;
}

/** One panel: axes, gridlines, the floors, the series with their round bars, the legend below. */
function renderPanel(panel: ChartPanel, originX: number, originY: number): string {
  const width = PANEL_WIDTH - PLOT.left - PLOT.right;
  const { height } = PLOT;
  const left = originX + PLOT.left;
  const top = originY + PLOT.top;
  const bottom = top + height;
  const points = panel.series.flatMap((series) => series.points);
  const [lowDecade, highDecade] = logDomain(points.map((p) => p.x));
  const xOf = (x: number) =>
    left +
    X_INSET +
    ((Math.log10(x) - lowDecade) / (highDecade - lowDecade)) * (width - 2 * X_INSET);
  const largest = Math.max(
    1e-9,
    ...points.map((p) => Math.max(p.y, p.high)),
    ...panel.references.flatMap((r) => r.points.map((p) => p.y)),
  );
  const step = niceStep(largest * 1.05);
  const yMax = Math.ceil((largest * 1.05) / step) * step;
  const yOf = (y: number) => bottom - (y / yMax) * height;

  const parts: string[] = [
    text(
      originX + PANEL_WIDTH / 2,
      originY + 22,
      panel.title,
      'text-anchor="middle" class="title"',
    ),
  ];
  for (let tick = 0; tick <= yMax + step / 2; tick += step) {
    const y = yOf(tick);
    parts.push(
      `<line x1="${left}" y1="${round(y)}" x2="${left + width}" y2="${round(y)}" class="grid"/>`,
      text(left - 8, y + 4, formatTick(tick, step), 'text-anchor="end"'),
    );
  }
  for (let decade = lowDecade; decade <= highDecade; decade++) {
    const x = xOf(10 ** decade);
    parts.push(
      `<line x1="${round(x)}" y1="${top}" x2="${round(x)}" y2="${bottom}" class="grid"/>`,
      `<line x1="${round(x)}" y1="${bottom}" x2="${round(x)}" y2="${bottom + 5}" class="axis"/>`,
      text(x, bottom + 19, decadeLabel(10 ** decade), 'text-anchor="middle"'),
    );
  }
  parts.push(
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${bottom}" class="axis"/>`,
    `<line x1="${left}" y1="${bottom}" x2="${left + width}" y2="${bottom}" class="axis"/>`,
    text(left + width / 2, bottom + 40, panel.xLabel, 'text-anchor="middle" class="label"'),
    text(
      originX + 16,
      top + height / 2,
      panel.yLabel,
      `text-anchor="middle" class="label" transform="rotate(-90 ${originX + 16} ${round(top + height / 2)})"`,
    ),
  );

  const legend: string[] = [];
  let legendY = bottom + 64;
  const legendEntry = (sample: string, label: string) => {
    legend.push(`<g transform="translate(${left} ${legendY})">${sample}${text(34, 4, label)}</g>`);
    legendY += LEGEND_LINE;
  };
  panel.references.forEach((reference, i) => {
    const style = REFERENCE_STYLES[i % REFERENCE_STYLES.length] ?? { colour: "#444", dash: "6 3" };
    const stroke = `fill="none" stroke="${style.colour}" stroke-width="1.5" stroke-dasharray="${style.dash}"`;
    const vertices = [...reference.points]
      .sort((a, b) => a.x - b.x)
      .map((p) => ({ x: xOf(p.x), y: yOf(p.y) }));
    const [only] = vertices;
    const drawn =
      vertices.length === 1 && only
        ? [
            { x: left, y: only.y },
            { x: left + width, y: only.y },
          ]
        : vertices;
    const path = drawn.map((p) => `${round(p.x)},${round(p.y)}`).join(" ");
    parts.push(`<polyline points="${path}" ${stroke}/>`);
    legendEntry(`<line x1="0" y1="0" x2="26" y2="0" ${stroke}/>`, reference.label);
  });
  panel.series.forEach((series, i) => {
    const colour = SERIES_COLOURS[i % SERIES_COLOURS.length] ?? "#000";
    const sorted = [...series.points].sort((a, b) => a.x - b.x);
    const dodge = (i - (panel.series.length - 1) / 2) * DODGE;
    const path = sorted.map((p) => `${round(xOf(p.x) + dodge)},${round(yOf(p.y))}`).join(" ");
    parts.push(
      `<polyline points="${path}" fill="none" stroke="${colour}" stroke-width="2"/>`,
      ...sorted.map((p) => {
        const x = round(xOf(p.x) + dodge);
        return (
          `<line x1="${x}" y1="${round(yOf(p.low))}" x2="${x}" y2="${round(yOf(p.high))}" stroke="${colour}" stroke-width="1" opacity="0.7"/>` +
          `<circle cx="${x}" cy="${round(yOf(p.y))}" r="3.5" fill="${colour}"/>`
        );
      }),
    );
    legendEntry(
      `<line x1="0" y1="0" x2="26" y2="0" stroke="${colour}" stroke-width="2"/><circle cx="13" cy="0" r="3.5" fill="${colour}"/>`,
      series.label,
    );
  });
  return `<g class="panel">${parts.join("")}${legend.join("")}</g>`;
}

/**
 * A self-contained SVG of panels laid out two to a row: log-scale x axes,
 * linear y axes from zero, floors as dashed lines. Hand-written so
 * the bench needs no chart library; any browser shows it.
 */
export function renderChart(title: string, subtitles: string[], panels: ChartPanel[]): string {
  const columns = Math.min(2, Math.max(1, panels.length));
  const rows = Math.ceil(panels.length / columns);
  const mostLegend = Math.max(0, ...panels.map(legendLines));
  const panelHeight = PLOT.top + PLOT.height + 64 + mostLegend * LEGEND_LINE + 8;
  const header = 44 + subtitles.length * 18;
  const width = columns * PANEL_WIDTH;
  const height = header + rows * panelHeight;
  const body = panels.map((panel, i) =>
    renderPanel(panel, (i % columns) * PANEL_WIDTH, header + Math.floor(i / columns) * panelHeight),
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">`,
    "<style>.title{font-size:14px;font-weight:600}.label{font-size:12px;fill:#333}.grid{stroke:#e4e4e4}.axis{stroke:#333}</style>",
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    text(width / 2, 26, title, 'text-anchor="middle" font-size="17" font-weight="700"'),
    ...subtitles.map((line, i) =>
      text(width / 2, 46 + i * 18, line, 'text-anchor="middle" fill="#555"'),
    ),
    ...body,
    "</svg>",
    "",
  ].join("\n");
}
