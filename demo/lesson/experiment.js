// The experiment: fill a larger real filter step by step and measure, at each load, the false-positive
// rate on keys never added (fresh ones at every point, so the points are independent) with a 95%
// interval, and the kicks per insert. Earlier runs stay on the charts, faded, for comparison.
import { decades, drawChart, linearTicks } from './charts.js';
import { filterWithBuckets } from './params.js';
import { bloomBitsPerItem, cuckooSizing, expectedFpRate, fullLoadBound } from './sizing.js';
import { $, percent } from './text.js';

export const EXPERIMENT = { buckets: 2000, probes: 20000, maxKicks: 500 };
const KEPT_RUNS = 4;

/** Wilson's 95% interval for `hits` successes out of `n`. */
export function wilson(hits, n) {
  const z = 1.96;
  const p = hits / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

const nextFrame = () => new Promise((resolve) => setTimeout(resolve, 0));

export class Experiment {
  constructor() {
    this.runs = [];
  }

  async run({ slots, bits }) {
    const tag = Array.from(crypto.getRandomValues(new Uint32Array(2)), (v) => v.toString(36)).join('');
    const filter = filterWithBuckets({ buckets: EXPERIMENT.buckets, slots, bits, seed: 42, maxKicks: EXPERIMENT.maxKicks });
    const run = { label: `run ${this.runs.length + 1}: ${slots} slots, ${bits} bits`, slots, bits, points: [], maxLoad: 0, failed: false };
    this.runs.push(run);
    if (this.runs.length > KEPT_RUNS + 1) this.runs.shift();
    const total = filter.bucketCount * slots;
    let added = 0;
    try {
      for (let point = 1; point <= 20; point++) {
        let kicks = 0;
        let inserts = 0;
        let failed = false;
        while (added < (point / 20) * total && !failed) {
          const trace = filter.addTraced(`fill-${tag}-${added}-${inserts}`);
          inserts++;
          if (!trace.added) failed = true;
          else {
            added++;
            kicks += trace.steps.filter((s) => s.kind === 'kick').length;
          }
        }
        // Fresh probes at every point: reusing one set would make every point share its luck.
        const probes = Array.from({ length: EXPERIMENT.probes }, (_, i) => `probe-${tag}-${point}-${i}`);
        const hits = filter.hasMany(probes).filter(Boolean).length;
        const [low, high] = wilson(hits, probes.length);
        run.points.push({ load: filter.loadFactor, measured: hits / probes.length, low, high, kicks: inserts > 0 ? kicks / inserts : 0 });
        run.maxLoad = filter.loadFactor;
        run.failed = failed;
        this.draw();
        await nextFrame();
        if (failed) break;
      }
    } finally {
      filter.dispose();
    }
    this.summarize(run);
    return run;
  }

  draw() {
    const current = this.runs[this.runs.length - 1];
    const theory = (load) => expectedFpRate(current.slots, current.bits, load);
    const theoryPoints = Array.from({ length: 51 }, (_, i) => ({ x: i / 50, y: theory(i / 50) }));
    const loadAxis = { min: 0, max: 1, label: 'load (share of slots used)', ticks: [0, 0.2, 0.4, 0.6, 0.8, 1], format: (v) => `${Math.round(v * 100)}%` };
    const measured = (run, i) => ({
      name: run.label, className: i === this.runs.length - 1 ? 'run-current' : `run-earlier run-${i}`, kind: 'dots',
      points: run.points.map((p) => ({ x: p.load, y: p.measured, low: p.low, high: p.high })),
    });
    const fprMax = Math.max(theory(1), ...this.runs.flatMap((r) => r.points.map((p) => p.high))) * 1.1;
    // Runs whose rates differ by more than 20 times share a log axis: on a linear one a 16-bit run (0.02%)
    // lay flat on the floor under a 4-bit one (37%). Rates of 0 (no false positive among the probes) are
    // drawn on the axis's floor.
    const peaks = this.runs.map((r) => Math.max(...r.points.map((p) => p.measured), expectedFpRate(r.slots, r.bits, r.maxLoad)));
    const logScale = Math.max(...peaks) > 20 * Math.min(...peaks);
    const positive = this.runs.flatMap((r) => r.points.map((p) => p.measured)).filter((v) => v > 0);
    const floor = 10 ** Math.floor(Math.log10(Math.min(...positive, theory(0.05), ...peaks.map((p) => p / 100))));
    const ceiling = 10 ** Math.ceil(Math.log10(fprMax));
    const yAxis = logScale
      ? { min: floor, max: ceiling, log: true, label: 'false-positive rate (log scale)', ticks: decades(floor, ceiling), format: (v) => percent(v) }
      : { min: 0, max: fprMax, label: 'false-positive rate', ticks: linearTicks(fprMax), format: (v) => percent(v) };
    $('chart-fpr').dataset.scale = logScale ? 'log' : 'linear';
    drawChart($('chart-fpr'), $('legend-fpr'), {
      x: loadAxis,
      y: yAxis,
      series: [...this.runs.map(measured), { name: `theory for ${current.slots} slots, ${current.bits} bits`, className: 'theory', kind: 'line', points: theoryPoints }],
    });
    const kickMax = Math.max(1, ...this.runs.flatMap((r) => r.points.map((p) => p.kicks))) * 1.1;
    drawChart($('chart-kicks'), $('legend-kicks'), {
      x: loadAxis,
      y: { min: 0, max: kickMax, label: 'kicks per insert', ticks: linearTicks(kickMax), format: (v) => String(v) },
      series: this.runs.map((run, i) => ({ ...measured(run, i), points: run.points.map((p) => ({ x: p.load, y: p.kicks })) })),
    });
  }

  summarize(run) {
    const last = run.points[run.points.length - 1];
    const rate = expectedFpRate(run.slots, run.bits, run.maxLoad);
    // The library picks fingerprint bits for a target rate by the bound of a full table, not by the rate
    // measured at some load: asking for that bound is what gives this table's shape.
    const bound = fullLoadBound(run.slots, run.bits);
    const sizing = cuckooSizing(bound, run.slots);
    const bloom = bloomBitsPerItem(bound);
    const shape = `${run.slots}-slot, ${run.bits}-bit`;
    const built = sizing.fingerprintBits === run.bits
      ? `exactly this shape, ${run.bits}-bit fingerprints in ${run.slots}-slot buckets`
      : `${sizing.fingerprintBits}-bit fingerprints in ${run.slots}-slot buckets`;
    $('experiment-summary').textContent = `${run.label[0].toUpperCase()}${run.label.slice(1)}: ` +
      (run.failed ? `the table filled to ${loadPercent(run.maxLoad)} before an insert first failed. ` : `the table filled to ${loadPercent(run.maxLoad)}, and no insert failed. `) +
      `There the measured false-positive rate was ${percent(last.measured)} ` +
      `(95% interval ${percent(last.low)} to ${percent(last.high)}; theory ${percent(rate)}). ` +
      `This library sizes a filter by a bound on the rate of a full table, 2 × slots / (2^bits − 1), which is ${percent(bound)} for ${shape} buckets ` +
      `(theory at 100% load: ${percent(expectedFpRate(run.slots, run.bits, 1))}): ` +
      `asked for a rate of ${percent(bound)}, it builds ${built}, at ${sizing.bitsPerItem.toFixed(1)} bits per item; an optimal ` +
      `Bloom filter for ${percent(bound)} needs ${bloom.toFixed(1)}. ${sizing.bitsPerItem <= bloom ? 'The cuckoo filter is smaller here' : 'The Bloom filter is smaller here, but cannot delete'} ` +
      '(the chart above shows where the two cross).' +
      // Measured at 4 bits: above the measurement at 11 of 18 loads, outside its 95% band at the highest.
      (run.bits <= 5
        ? ` At ${run.bits} bits the theory line runs a little above the measurement: it multiplies the chances of the 2 × ${run.slots} slots, ` +
          `1 − (1 − 1/${2 ** run.bits - 1})^(${2 * run.slots} × load), as if each were a separate draw, while a lookup matches only a stored key ` +
          `with its fingerprint and its two buckets, whose count is closer to Poisson, 1 − e^(−${2 * run.slots} × load / ${2 ** run.bits - 1}). ` +
          'The two differ by about 3% of the rate at 4 bits, and by nothing visible from 8 bits up.'
        : '');
  }
}

/** A load with one decimal, rounded down: a table one slot short of full is 99.9%, never 100%. */
function loadPercent(load) {
  // (The small term keeps 0.997, stored as 0.99699..., from flooring to 99.6.)
  return `${(Math.floor(load * 1000 + 1e-9) / 10).toFixed(1)}%`;
}
