/** The performance entries around the latency chart's first draw (bench/console-chart.ts reads the measure). */
export const CHART_DRAW_START = "vigil:latency-chart-start";
export const CHART_DRAW_MEASURE = "vigil:latency-chart-draw";
