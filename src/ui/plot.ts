/**
 * The prediction-error plot: an inline SVG scatter of errors (0 to 1) over time with the
 * protocol's stop line, no chart library. Numbers only reach the markup through `fixed`, text
 * through the escaping template; the figure has a title and a description for screen readers,
 * and the page carries the same points as a table.
 */
import { type Html, html } from './html.js';

export interface PlotPoint {
  at: string;
  value: number;
  label: string;
}

const W = 760;
const H = 260;
const PAD = { left: 44, right: 16, top: 14, bottom: 36 };

const fixed = (n: number) => n.toFixed(1);

export function errorPlot(points: PlotPoint[], range: { from: Date; to: Date }, stopLine: number): Html {
  // The points' own span (padded), within the range asked for: a range's worth of empty axis
  // with every point squeezed against its end reads as nothing.
  const first = points.length > 0 ? Math.min(...points.map((p) => Date.parse(p.at))) : range.from.getTime();
  const end = range.to.getTime();
  const t0 = Math.max(range.from.getTime(), first - Math.max(60_000, (end - first) * 0.05));
  const t1 = Math.max(end, t0 + 1);
  const label = (ms: number) => {
    const iso = new Date(ms).toISOString();
    return t1 - t0 < 86_400_000 ? iso.slice(11, 19) : iso.slice(5, 16).replace('T', ' ');
  };
  const x = (ms: number) => PAD.left + ((ms - t0) / (t1 - t0)) * (W - PAD.left - PAD.right);
  const y = (v: number) => PAD.top + (1 - Math.min(1, Math.max(0, v))) * (H - PAD.top - PAD.bottom);
  const above = points.filter((p) => p.value > stopLine).length;
  const last = points.at(-1);
  const description =
    points.length === 0
      ? 'No prediction error in this range.'
      : `${points.length} prediction error(s); ${above} above the stop line of ${stopLine}; the latest ${last!.value.toFixed(2)} for ${last!.label}.`;
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const timeTicks = Array.from({ length: 5 }, (_, i) => t0 + ((t1 - t0) * i) / 4);
  return html`<svg class="plot" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="plot-title plot-desc" data-testid="pe-plot" preserveAspectRatio="xMidYMid meet">
<title id="plot-title">Prediction error over time</title>
<desc id="plot-desc">${description}</desc>
${ticks.map(
  (v) =>
    html`<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${fixed(y(v))}" y2="${fixed(y(v))}"/><text class="axis" x="${PAD.left - 6}" y="${fixed(y(v) + 4)}" text-anchor="end">${v.toFixed(2)}</text>`,
)}
${timeTicks.map(
  (ms, i) =>
    html`<text class="axis" x="${fixed(x(ms))}" y="${H - 12}" text-anchor="${i === 0 ? 'start' : i === 4 ? 'end' : 'middle'}">${label(ms)}</text>`,
)}
<line class="stop" x1="${PAD.left}" x2="${W - PAD.right}" y1="${fixed(y(stopLine))}" y2="${fixed(y(stopLine))}"/>
<text class="stop-label" x="${W - PAD.right}" y="${fixed(y(stopLine) - 5)}" text-anchor="end">stop line ${stopLine}</text>
${points.map(
  (p) =>
    html`<circle class="${p.value > stopLine ? 'pt pt-high' : 'pt'}" cx="${fixed(x(Date.parse(p.at)))}" cy="${fixed(y(p.value))}" r="4"><title>${p.label}: ${p.value.toFixed(2)} at ${p.at}</title></circle>`,
)}
</svg>`;
}
