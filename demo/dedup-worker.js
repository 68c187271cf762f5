// Deduplicates a file's lines with the real filter, chunk by chunk: memory holds one chunk of input and
// one of output at a time (output chunks become Blobs, which the browser may keep out of the tab's heap).
// Lines are bytes; a line's key leaves out its "\n" or "\r\n" (the same rule as the cuckoo command).
import { ready, CuckooFilter, lineRanges } from './dist/esm/index.js';

const OUTPUT_PART = 1 << 20;

// Lines to size for: the file's bytes over the mean line length of its first 64 KiB, plus 10%.
async function estimateLines(file) {
  const sample = new Uint8Array(await file.slice(0, 1 << 16).arrayBuffer());
  let lines = 0;
  for (let at = sample.indexOf(10); at !== -1; at = sample.indexOf(10, at + 1)) lines++;
  if (sample.length > 0 && sample[sample.length - 1] !== 10) lines++;
  const mean = lines > 0 ? sample.length / lines : Math.max(file.size, 1);
  return Math.max(1, Math.ceil((file.size / mean) * 1.1));
}

self.onmessage = async ({ data: { file, fpRate } }) => {
  const started = performance.now();
  try {
    await ready();
    const filter = new CuckooFilter({ capacity: await estimateLines(file), fpRate });
    const parts = [];
    let pending = [];
    let pendingBytes = 0;
    let lines = 0;
    let unique = 0;
    let done = 0;
    let lastReport = 0;
    const report = (type, extra = {}) => {
      const seconds = (performance.now() - started) / 1000;
      self.postMessage({ type, done, total: file.size, lines, unique, linesPerSecond: lines / Math.max(seconds, 1e-3), seconds, ...extra });
    };
    const keep = (bytes) => {
      pending.push(bytes);
      pendingBytes += bytes.length;
      if (pendingBytes >= OUTPUT_PART) {
        parts.push(new Blob(pending));
        pending = [];
        pendingBytes = 0;
      }
    };
    // One block of whole lines (the last may lack its "\n").
    const process = (block, last) => {
      const ranges = lineRanges(block);
      const count = ranges.length / 2;
      const codes = filter.addIfAbsentRanges(block, ranges);
      let runStart = -1;
      for (let i = 0; i < count; i++) {
        if (codes[i] === 2) throw new Error(`the filter is full after ${unique} unique lines (its size was estimated from the first 64 KiB of the file)`);
        if (codes[i] === 1) {
          unique++;
          if (runStart < 0) runStart = ranges[2 * i];
        } else if (runStart >= 0) {
          keep(block.slice(runStart, ranges[2 * i]));
          runStart = -1;
        }
      }
      if (runStart >= 0) keep(block.slice(runStart));
      if (last && codes[count - 1] === 1) keep(new Uint8Array([10]));
      lines += count;
    };
    const reader = file.stream().getReader();
    let carry = null;
    for (;;) {
      const { value, done: finished } = await reader.read();
      if (finished) break;
      done += value.length;
      let chunk = value;
      if (carry) {
        chunk = new Uint8Array(carry.length + value.length);
        chunk.set(carry);
        chunk.set(value, carry.length);
      }
      const lastNewline = chunk.lastIndexOf(10);
      if (lastNewline === -1) {
        carry = chunk;
        continue;
      }
      carry = lastNewline + 1 < chunk.length ? chunk.slice(lastNewline + 1) : null;
      process(chunk.subarray(0, lastNewline + 1), false);
      if (performance.now() - lastReport > 100) {
        lastReport = performance.now();
        report('progress');
      }
    }
    if (carry && carry.length > 0) process(carry, true);
    if (pending.length > 0) parts.push(new Blob(pending));
    const slots = filter.bucketCount * filter.bucketSize;
    const perSlot = (2 * filter.bucketSize) / (2 ** filter.fingerprintBits - 1);
    report('done', {
      output: new Blob(parts, { type: 'text/plain' }),
      expectedFalseDrops: (perSlot * unique * Math.max(unique - 1, 0)) / (2 * slots),
      fingerprintBits: filter.fingerprintBits,
      filterBytes: filter.byteLength,
    });
    filter.dispose();
  } catch (error) {
    self.postMessage({ type: 'error', message: error.message });
  }
};
