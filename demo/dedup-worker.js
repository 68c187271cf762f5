// Deduplicates a file's lines with the package's LineDeduper (the engine the `cuckoo` command runs), block
// by block: memory holds the filter, one block of input and one of output at a time (output blocks become
// Blobs, which the browser may keep out of the tab's heap). The filter grows, and with the file's size
// known it can always hold every line: a valid file is never refused.
import { ready, LineDeduper } from './dist/esm/index.js';

const OUTPUT_PART = 1 << 20;

// Read in slices of fixed sizes, not as file.stream() hands them out: the filter is sized from the first
// block's lines, and stream chunks can differ between runs, which made the same file's filter differ too.
// The first is 64 KiB, the chunk file.stream() gave most often.
const FIRST_BLOCK = 64 << 10;
const BLOCK = 1 << 20;

self.onmessage = async ({ data: { file, fpRate } }) => {
  const started = performance.now();
  let deduper;
  try {
    // No lines, nothing to remember: without a size to go by, the engine would make its 2-million-line
    // filter for an unknown input.
    if (file.size === 0) {
      self.postMessage({ type: 'done', done: 0, total: 0, lines: 0, unique: 0, seconds: (performance.now() - started) / 1000, binary: false,
        output: new Blob([], { type: 'text/plain' }), wrongDropBound: 0, fingerprintBits: 0, subFilters: 0, filterBytes: 0, capacity: 0 });
      return;
    }
    await ready();
    deduper = new LineDeduper({ fpRate, inputBytes: file.size });
    const parts = [];
    let pending = [];
    let pendingBytes = 0;
    let done = 0;
    let binary = false;
    let lastReport = 0;
    const report = (type, extra = {}) => {
      const seconds = (performance.now() - started) / 1000;
      const { lines, unique } = deduper.stats;
      self.postMessage({ type, done, total: file.size, lines, unique, seconds, binary, ...extra });
    };
    const keep = (bytes) => {
      if (bytes.length === 0) return;
      pending.push(bytes);
      pendingBytes += bytes.length;
      if (pendingBytes >= OUTPUT_PART) {
        parts.push(new Blob(pending));
        pending = [];
        pendingBytes = 0;
      }
    };
    for (let at = 0; at < file.size; at += at === 0 ? FIRST_BLOCK : BLOCK) {
      const value = new Uint8Array(await file.slice(at, at + (at === 0 ? FIRST_BLOCK : BLOCK)).arrayBuffer());
      done += value.length;
      // A NUL byte: text files have none, so this is probably not text (it is deduplicated all the same).
      if (!binary && value.indexOf(0) !== -1) binary = true;
      keep(deduper.push(value));
      if (performance.now() - lastReport > 100) {
        lastReport = performance.now();
        report('progress');
      }
    }
    keep(deduper.end());
    if (pending.length > 0) parts.push(new Blob(pending));
    const stats = deduper.stats;
    report('done', {
      output: new Blob(parts, { type: 'text/plain' }),
      wrongDropBound: stats.wrongDropBound,
      fingerprintBits: stats.fingerprintBits,
      subFilters: stats.subFilters,
      doublings: stats.doublings,
      filterBytes: stats.filterBytes,
      capacity: stats.plan?.capacity ?? 0,
    });
  } catch (error) {
    self.postMessage({ type: 'error', message: error.message });
  } finally {
    deduper?.dispose();
  }
};
