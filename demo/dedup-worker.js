// Deduplicates files' lines with the package's LineDeduper (the engine the `cuckoo` command runs), block
// by block: memory holds the filter, one block of input and one of output at a time. Output blocks go to
// the file the page chose (a FileSystemWritableFileStream, written as they come) or become Blobs, which
// the browser may keep out of the tab's heap. Several files are one input, read in order, each file's
// last line ending with its file. The filter grows, and with the input's size known it can always hold
// every line: a valid file is never refused.
import { ready, CuckooFilter, CuckooFilterError, LineDeduper } from './dist/esm/index.js';
import { PARTITION_FROM_BYTES, PartitionedRun } from './dist/esm/partitioned.js';

const OUTPUT_PART = 1 << 20;

// Read in slices of fixed sizes, not as file.stream() hands them out: the filter is sized from the first
// block's lines, and stream chunks can differ between runs, which made the same file's filter differ too.
// The first is 64 KiB, the chunk file.stream() gave most often. Then slices of 4 MiB, each read while the
// last is worked on (the browser reads a file off this thread), handed to the engine 1 MiB at a time (a
// run on two threads copies each block into its heap). 200 MB of log lines in headless Chromium: read
// alone, 0.63 s in slices of 1 MiB and 0.28 s of 4 MiB; deduplicated on one thread, 2.08-2.17 s in slices
// of 1 MiB not read ahead, 1.61-1.87 s so (alternating runs, 2026-11-28).
const FIRST_BLOCK = 64 << 10;
const READ = 4 << 20;
const BLOCK = 1 << 20;

/**
 * The run's engine on two threads (the package's partitioned run, as the `cuckoo` command runs a large
 * file): the keys shared between this worker's filter and a helper worker's (dedup-helper.js), which
 * decides its share of each block while this one reads and hashes the next. Undefined when the helper
 * cannot start: the run then takes one thread (the output is the same).
 */
async function twoThreads(options) {
  let worker;
  try {
    worker = new Worker(new URL('dedup-helper.js', import.meta.url), { type: 'module' });
  } catch {
    return undefined; // no nested workers here
  }
  const link = {
    post: (call, transfer) => worker.postMessage(call, transfer),
    listen(take) {
      worker.onmessage = ({ data }) => take(data);
      worker.onerror = (event) => {
        event.preventDefault();
        take({ failed: 'error', message: `the helper thread failed (${event.message || 'it could not start'})` });
      };
    },
    terminate() {
      worker.terminate();
      return undefined;
    },
  };
  try {
    return await PartitionedRun.start(options, link);
  } catch (error) {
    if (error instanceof CuckooFilterError) throw error; // the filter's (out of memory): the run's error
    return undefined;
  }
}

/** Cancel was asked: the run stops at its next block. */
let cancelled = false;
class Cancelled extends Error {}
const checkCancelled = () => {
  if (cancelled) throw new Cancelled('cancelled');
};

self.onmessage = ({ data }) => {
  if (data.type === 'cancel') cancelled = true;
  else if (data.type === 'run') run(data);
};

async function run({ files, fpRate, csv, fields, delimiter, remember, seenBytes, output, threads }) {
  const started = performance.now();
  const total = files.reduce((sum, f) => sum + f.size, 0);
  let deduper;
  /** @type {PartitionedRun | undefined} */
  let partitioned;
  let seen;
  let writable;
  try {
    if (output) writable = await output.createWritable();
    checkCancelled();
    const parts = [];
    let pending = [];
    let pendingBytes = 0;
    let written = 0;
    let done = 0;
    let fileIndex = 0;
    let binary = false;
    let lastReport = 0;
    const keep = async (bytes) => {
      if (bytes.length === 0) return;
      written += bytes.length;
      if (writable) {
        await writable.write(bytes);
        return;
      }
      pending.push(bytes);
      pendingBytes += bytes.length;
      if (pendingBytes >= OUTPUT_PART) {
        parts.push(new Blob(pending));
        pending = [];
        pendingBytes = 0;
      }
    };
    const finish = async (extra) => {
      if (pending.length > 0) parts.push(new Blob(pending));
      if (writable) {
        await writable.close();
        writable = undefined;
      }
      const seconds = (performance.now() - started) / 1000;
      const message = {
        type: 'done', done, total, seconds, binary, written,
        output: output ? undefined : new Blob(parts, { type: csv ? 'text/csv' : 'text/plain' }), ...extra,
      };
      self.postMessage(message, { transfer: extra.remember ? [extra.remember.buffer] : [] });
    };
    // No lines, nothing to remember: no filter is made (and a remembered one stays as it was).
    if (total === 0) {
      await finish({ lines: 0, unique: 0, wrongDropBound: 0, fingerprintBits: 0, subFilters: 0, filterBytes: 0, capacity: 0, doublings: 0 });
      return;
    }
    await ready();
    checkCancelled();
    /** @type {import('./dist/esm/index.js').LineDeduperOptions} */
    const options = {};
    let rememberedBefore;
    if (seenBytes) {
      try {
        seen = CuckooFilter.import(seenBytes);
      } catch (error) {
        throw new Error(`the remembered lines could not be read (${error.message}): Forget them to start again`);
      }
      rememberedBefore = seen.size;
      // The remembered filter sets the rate and grows as it needs: no rate or size goes with it.
      options.seen = seen;
    } else {
      if (fpRate !== undefined) options.fpRate = fpRate;
      // A filter kept for later runs starts as for an input of unknown size (as `cuckoo dedup --seen`
      // makes it), so that it can grow for the runs to come, not only for this input.
      if (!remember) options.inputBytes = total;
    }
    if (csv) options.csv = true;
    if (fields !== undefined) options.fields = fields;
    if (delimiter !== undefined) options.delimiter = delimiter;
    // Two threads, as the command takes them: a large input, a core to spare, no remembered lines (those
    // are one filter); `threads` (the page's ?threads=1 or 2) decides instead when given.
    const helper =
      !remember && !seen && (threads === 2 || (threads === undefined && navigator.hardwareConcurrency > 1 && total >= PARTITION_FROM_BYTES));
    if (helper) partitioned = await twoThreads(options);
    checkCancelled();
    if (!partitioned) deduper = new LineDeduper(options);
    const engine = partitioned ?? deduper;
    // A run on two threads hands out each block's lines a block later, as views of its heap: kept as copies.
    const keepCopy = (bytes) => keep(bytes.slice());
    const push = (value) => (partitioned ? partitioned.push(value, false, keepCopy) : keep(deduper.push(value)));
    const nextInput = () => (partitioned ? partitioned.nextInput(keepCopy) : keep(deduper.nextInput()));
    const end = () => (partitioned ? partitioned.end(keepCopy) : keep(deduper.end()));
    const report = (type, extra = {}) => {
      const seconds = (performance.now() - started) / 1000;
      const { lines, unique } = engine.stats;
      self.postMessage({ type, done, total, lines, unique, seconds, binary, fileIndex, ...extra });
    };
    // Each file is an input of its own (deduper.nextInput()): its last line ends with it, as the `cuckoo
    // dedup` command and awk read several files, and with CSV its header is held against the first file's
    // and not written again.
    for (; fileIndex < files.length; fileIndex++) {
      const file = files[fileIndex];
      const named = (error) => (error instanceof Cancelled ? error : new Error(`${file.name}: ${error.message}`));
      if (fileIndex > 0) {
        try {
          await nextInput();
        } catch (error) {
          throw new Error(`${files[fileIndex - 1].name}: ${error.message}`);
        }
      }
      const slice = (at) => {
        const read = file.slice(at, at + (done === 0 && at === 0 ? FIRST_BLOCK : READ)).arrayBuffer();
        read.catch(() => {}); // a read left behind by a failed or cancelled run
        return read;
      };
      let ahead = file.size > 0 ? slice(0) : undefined;
      for (let at = 0; ahead;) {
        const value = new Uint8Array(await ahead);
        checkCancelled();
        at += value.length;
        ahead = at < file.size ? slice(at) : undefined;
        // A NUL byte: text files have none, so this is probably not text (it is deduplicated all the same).
        if (!binary && value.indexOf(0) !== -1) binary = true;
        for (let piece = 0; piece < value.length; piece += BLOCK) {
          const block = value.subarray(piece, piece + BLOCK);
          done += block.length;
          try {
            await push(block);
          } catch (error) {
            throw named(error);
          }
          checkCancelled();
          if (performance.now() - lastReport > 100) {
            lastReport = performance.now();
            report('progress');
          }
        }
      }
    }
    fileIndex = files.length - 1;
    await end();
    checkCancelled();
    const stats = engine.stats;
    let rememberedAfter;
    let bytes;
    if (remember) {
      // The deduplicator added this run's new lines to the remembered filter, or made the first one.
      bytes = seen ? seen.export() : deduper.exportFilter();
      rememberedAfter = seen ? seen.size : stats.unique;
    }
    await finish({
      lines: stats.lines,
      unique: stats.unique,
      wrongDropBound: stats.wrongDropBound,
      fingerprintBits: stats.fingerprintBits,
      subFilters: stats.subFilters,
      doublings: stats.doublings,
      filterBytes: stats.filterBytes,
      capacity: stats.plan?.capacity ?? 0,
      threads: partitioned ? 2 : 1,
      remember: bytes,
      rememberedBefore,
      rememberedAfter,
    });
  } catch (error) {
    // The output file is left as it was: the browser discards what this run wrote.
    await writable?.abort().catch(() => {});
    if (error instanceof Cancelled) self.postMessage({ type: 'cancelled' });
    else self.postMessage({ type: 'error', message: error.message });
  } finally {
    deduper?.dispose();
    partitioned?.dispose(); // ends the helper too
    seen?.dispose();
  }
}
