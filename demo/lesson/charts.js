// A small SVG chart: axes with ticks (linear or log), series drawn as lines, steps or dots with an error
// band, vertical markers, and an HTML legend beside it (so it wraps on a phone instead of being clipped).
import { svgElement } from './text.js';

const WIDTH = [300, 620]; // drawn at its width on screen (within these), so that text is 12 px as in the CSS
const HEIGHT = 260;
const MIN_LEFT = 58; // the plot's left edge at the least; further right when the y labels are wider
const Y_TITLE_RIGHT = 18; // the rotated y-axis title (12 px text centred at x = 12) ends before this x
const RIGHT = 26; // room for the last x label ("100%") to be drawn whole
const TOP_MARGIN = 14;
const BOTTOM = 40;
const MARKER_ROW = 17; // each marker's label has a row of its own above the plot, clear of the lines

function scale(axis, from, to) {
  const f = axis.log ? Math.log10 : (v) => v;
  const a = f(axis.min);
  const b = f(axis.max);
  return (v) => from + ((f(Math.min(Math.max(v, axis.min), axis.max)) - a) / (b - a)) * (to - from);
}

/**
 * chart: { x: axis, y: axis, series: [{ name, className, kind: 'line' | 'dots', points: [{ x, y, low?, high? }] }],
 * markers: [{ x, label, short?, className }] }, an axis being { min, max, log?, label, ticks, format }. A marker's
 * short label is used where its label does not fit beside its line.
 */
export function drawChart(svg, legend, chart) {
  // A fixed 460-unit viewBox shrank an 11 px label to 7 px on a phone.
  const W = Math.round(Math.min(WIDTH[1], Math.max(WIDTH[0], svg.getBoundingClientRect().width || 460)));
  const markers = chart.markers ?? [];
  // Under the markers' rows, a little room more, so that the top label of the y axis stays clear of them.
  const MARKERS_H = markers.length > 0 ? markers.length * MARKER_ROW + 6 : 0;
  const TOP = TOP_MARGIN + MARKERS_H;
  const H = HEIGHT + MARKERS_H;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.dataset.width = String(W);
  svg.replaceChildren();
  // The plot starts right of the widest y label, which starts right of the y axis's title: a fixed edge let
  // "0.0010%" run into the title.
  const probe = svgElement('text', { class: 'chart-label', x: 0, y: -100 }, undefined, svg);
  const widthOf = (label) => {
    probe.textContent = label;
    return probe.getComputedTextLength() || label.length * 7.1; // 0 while the chart is not rendered
  };
  const widestY = Math.max(0, ...chart.y.ticks.map((t) => widthOf(chart.y.format(t))));
  probe.remove();
  const LEFT = Math.max(MIN_LEFT, Math.ceil(Y_TITLE_RIGHT + 3 + widestY + 5));
  const x = scale(chart.x, LEFT, W - RIGHT);
  const y = scale(chart.y, H - BOTTOM, TOP);
  for (const t of chart.y.ticks) {
    svgElement('line', { class: 'chart-grid', x1: LEFT, x2: W - RIGHT, y1: y(t), y2: y(t) }, undefined, svg);
    svgElement('text', { class: 'chart-label', x: LEFT - 5, y: y(t) + 4, 'text-anchor': 'end' }, chart.y.format(t), svg);
  }
  // On a narrow chart every other tick is labelled when the labels (about 7.1 px a character at 12 px)
  // would run into each other.
  const ticks = chart.x.ticks;
  const widest = Math.max(...ticks.map((t) => chart.x.format(t).length)) * 7.1;
  const spacing = ticks.length > 1 ? Math.abs(x(ticks[1]) - x(ticks[0])) : Infinity;
  const every = spacing < widest + 6 ? 2 : 1;
  ticks.forEach((t, i) => {
    svgElement('line', { class: 'chart-grid', x1: x(t), x2: x(t), y1: TOP, y2: H - BOTTOM }, undefined, svg);
    if (i % every !== 0) return;
    // A label at the y axis starts there, clear of the y axis's bottom label.
    const first = x(t) <= LEFT + 1;
    svgElement('text', { class: 'chart-label', x: x(t), y: H - BOTTOM + 15, 'text-anchor': first ? 'start' : 'middle' }, chart.x.format(t), svg);
  });
  svgElement('line', { class: 'chart-axis', x1: LEFT, x2: W - RIGHT, y1: H - BOTTOM, y2: H - BOTTOM }, undefined, svg);
  svgElement('line', { class: 'chart-axis', x1: LEFT, x2: LEFT, y1: TOP, y2: H - BOTTOM }, undefined, svg);
  svgElement('text', { class: 'chart-label', x: (LEFT + W - RIGHT) / 2, y: H - 6, 'text-anchor': 'middle' }, chart.x.label, svg);
  svgElement('text', { class: 'chart-label', x: 12, y: (TOP + H - BOTTOM) / 2, 'text-anchor': 'middle', transform: `rotate(-90 12 ${(TOP + H - BOTTOM) / 2})` }, chart.y.label, svg);
  for (const series of chart.series) {
    const group = svgElement('g', { class: `series ${series.className}`, 'data-series': series.name }, undefined, svg);
    if (series.kind === 'line') {
      const d = series.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.x).toFixed(1)},${y(p.y).toFixed(1)}`).join('');
      svgElement('path', { class: 'chart-line', d }, undefined, group);
    } else {
      const banded = series.points.filter((p) => p.low !== undefined);
      if (banded.length > 1) {
        const upper = banded.map((p) => `${x(p.x).toFixed(1)},${y(p.high).toFixed(1)}`);
        const lower = banded.map((p) => `${x(p.x).toFixed(1)},${y(p.low).toFixed(1)}`).reverse();
        svgElement('polygon', { class: 'chart-band', points: [...upper, ...lower].join(' ') }, undefined, group);
      }
      const d = series.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.x).toFixed(1)},${y(p.y).toFixed(1)}`).join('');
      svgElement('path', { class: 'chart-join', d }, undefined, group);
      for (const p of series.points) svgElement('circle', { class: 'chart-point', cx: x(p.x), cy: y(p.y), r: 3.2 }, undefined, group);
    }
  }
  // Each marker's label sits in a row of its own above the plot, right beside its line, which runs up to
  // it. The rightmost marker takes the top row; a label goes right of its line if it fits there and
  // crosses no line already drawn up through its row (those are to its right), else left, where no line
  // reaches its row (the lines to its left stop at rows below).
  const placed = [...markers].sort((a, b) => b.x - a.x);
  const drawnAt = [];
  placed.forEach((marker, row) => {
    const at = x(marker.x);
    const baseline = TOP_MARGIN + row * MARKER_ROW + 9;
    const group = svgElement('g', { class: `chart-marker ${marker.className ?? ''}` }, undefined, svg);
    svgElement('line', { x1: at, x2: at, y1: baseline - 5, y2: H - BOTTOM }, undefined, group);
    const label = svgElement('text', { x: at + 4, y: baseline, 'text-anchor': 'start' }, marker.label, group);
    // Its full text if it fits on one side, else its short one (a narrow chart on a phone).
    const side = () => {
      const width = label.getComputedTextLength();
      if (at + 4 + width <= W - 2 && drawnAt.every((other) => other > at + 6 + width)) return 'right';
      return at - 4 - width >= 2 ? 'left' : undefined;
    };
    let where = side();
    if (where === undefined && marker.short) {
      label.textContent = marker.short;
      where = side();
    }
    if (where !== 'right') {
      label.setAttribute('x', String(at - 4));
      label.setAttribute('text-anchor', 'end');
    }
    drawnAt.push(at);
  });
  legend.replaceChildren(...chart.series.filter((s) => s.name).map((series) => {
    const item = document.createElement('li');
    item.className = series.className;
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.setAttribute('aria-hidden', 'true');
    item.append(swatch, document.createTextNode(series.name));
    return item;
  }));
}

/** The powers of ten from min to max, for a log axis: 1e-6, 1e-5, ... */
export function decades(min, max) {
  const out = [];
  for (let e = Math.ceil(Math.log10(min)); 10 ** e <= max * 1.0001; e++) out.push(10 ** e);
  return out;
}

/** About `count` round ticks from 0 to max. */
export function linearTicks(max, count = 4) {
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const out = [];
  for (let v = 0; v <= max * 1.0001; v += step) out.push(Number(v.toPrecision(6)));
  return out;
}
