// A small vertical bar chart in SVG, with the same numbers in a table for those who do not see it.
// Colours come from the theme's variables, so it holds its contrast in light and dark.

export interface ChartBar {
  /** What the bar counts, short: a day ("Jan 5"), an app. */
  readonly label: string;
  readonly value: number;
}

const WIDTH = 640;
const HEIGHT = 200;
const AXIS = 24;
const TOP = 16;

/**
 * Bars scaled so that the tallest fills the height; each carries its value as a title. `caption`
 * names the chart and heads the table that repeats it.
 */
export function BarChart({ caption, bars, unit }: { caption: string; bars: readonly ChartBar[]; unit: string }) {
  const max = Math.max(0, ...bars.map((bar) => bar.value));
  const slot = bars.length > 0 ? WIDTH / bars.length : WIDTH;
  const barWidth = Math.max(4, slot * 0.6);
  const plot = HEIGHT - AXIS - TOP;
  return (
    <figure className="bar-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`${caption}: ${describe(bars, unit)}`} data-bars={bars.length}>
        <line className="bar-chart-axis" x1={0} x2={WIDTH} y1={HEIGHT - AXIS} y2={HEIGHT - AXIS} />
        {bars.map((bar, index) => {
          const height = max > 0 ? (Math.max(0, bar.value) / max) * plot : 0;
          const x = index * slot + (slot - barWidth) / 2;
          return (
            <g key={`${index}-${bar.label}`}>
              <rect className="bar-chart-bar" x={x} y={HEIGHT - AXIS - height} width={barWidth} height={height} data-value={bar.value}>
                <title>{`${bar.label}: ${bar.value} ${unit}`}</title>
              </rect>
              <text className="bar-chart-value" x={x + barWidth / 2} y={HEIGHT - AXIS - height - 4} textAnchor="middle">
                {bar.value}
              </text>
              <text className="bar-chart-label" x={x + barWidth / 2} y={HEIGHT - 6} textAnchor="middle">
                {bar.label}
              </text>
            </g>
          );
        })}
      </svg>
      <details className="bar-chart-table">
        <summary>{caption} as a table</summary>
        <table className="table">
          <thead>
            <tr>
              <th scope="col">{caption}</th>
              <th scope="col">{unit}</th>
            </tr>
          </thead>
          <tbody>
            {bars.map((bar, index) => (
              <tr key={`${index}-${bar.label}`}>
                <th scope="row">{bar.label}</th>
                <td>{bar.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** The chart in a sentence, for a screen reader: every bar's label and value. */
function describe(bars: readonly ChartBar[], unit: string): string {
  if (bars.length === 0) return 'no data';
  return bars.map((bar) => `${bar.label} ${bar.value} ${unit}`).join(', ');
}
