// The `cuckoo` command's count of a file's distinct keys, read before the run (cuckoo.ts, runEngine), and
// what decides whether a file is counted: samples of its records (mostlyRepeats) and the plan the run
// would make without a count (uncountedPlan). Here, not in the package's entries: only the command uses it.
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { ErrorCode } from '../abi.js';
import {
  checkOptions,
  type DedupPlan,
  LONG_LINES,
  type LineDeduperOptions,
  linesToReach,
  makeEngine,
  planDedup,
} from '../dedup.js';
import { CuckooFilterError, invalid } from '../errors.js';
import { CuckooFilter } from '../filter.js';
import { copyToScratch, heapAddressOf, heapBytes, readDedupReport } from '../heap.js';
import { type CuckooModule, errorFromModule, requireModule } from '../wasm_module.js';
import { BLOCK, type BlockBuffers, type FilePart, InputError, readBlocks, splitInputs } from './io.js';

/** The bytes of a count's registers: distinct_count.hpp's kRegisters (2^14). */
const DISTINCT_REGISTERS = 16_384;

/**
 * How many distinct keys a stream of blocks holds, about: the keys a LineDeduper with the same
 * record options would make (lines, or their fields; CSV headers left out), counted by a HyperLogLog sketch
 * of their hashes in the core (distinct_count.hpp: 16 KiB, a standard error of 0.81%). The `cuckoo` command
 * reads a file once with it to start its filter at the size the file needs.
 */
export class DistinctKeyCounter {
  private readonly m: CuckooModule;
  private readonly hasher: CuckooFilter; // its seeded hash only: the engine needs a filter
  private engine: number;
  private counted = 0; // lines, once the engine is freed

  constructor(options: Pick<LineDeduperOptions, 'zeroTerminated' | 'fields' | 'delimiter' | 'csv'> = {}) {
    this.m = requireModule();
    const o = checkOptions(options);
    this.hasher = new CuckooFilter({ capacity: 1 });
    try {
      this.engine = makeEngine(this.m, this.hasher, o);
    } catch (error) {
      this.hasher.dispose();
      throw error;
    }
    this.m.dedupCountDistinct(this.engine);
  }

  /**
   * A block: read in place when it is in the WebAssembly heap (LineDeduper.inputBlocks), else copied there
   * first (the end byte readBlocks adds to a file's last line: without it a last line "a\r" would be
   * counted as "a\r", where the run, which gets the byte too, sees "a").
   */
  push(block: Uint8Array): void {
    const engine = this.open();
    if (block.length === 0) return;
    const address = heapAddressOf(this.m, block) ?? copyToScratch(this.m, block);
    this.check(this.m.dedupPush(engine, address, block.length));
  }

  /** The next input begins (a last line without its end ends here; with csv, its header comes next). */
  nextInput(): void {
    this.check(this.m.dedupNextInput(this.open()));
  }

  /** Records read so far. */
  get lines(): number {
    return this.engine === 0 ? this.counted : readDedupReport(this.m, this.m.dedupReport(this.engine)).lines;
  }

  /**
   * A copy of the count so far (its sketch's DISTINCT_REGISTERS bytes), for merge() into a counter of
   * another part of the input: a file counted in parts on several threads.
   */
  registers(): Uint8Array {
    const engine = this.open();
    const at = this.m.dedupDistinctRegisters(engine);
    return heapBytes(this.m, at, DISTINCT_REGISTERS).slice();
  }

  /**
   * Merges another counter's registers() into this one: the count is then the same as one counter's over
   * both parts (a key in both counted once).
   */
  merge(registers: Uint8Array): void {
    const engine = this.open();
    if (registers.length !== DISTINCT_REGISTERS)
      throw invalid(`merge() takes ${DISTINCT_REGISTERS} bytes of registers, got ${registers.length}`);
    this.m.dedupDistinctMerge(engine, copyToScratch(this.m, registers));
  }

  /** The end of the input: the estimate of its distinct keys. The counter is then freed. */
  end(): number {
    this.check(this.m.dedupFinish(this.open()));
    const estimate = this.m.dedupDistinct(this.engine);
    this.counted = this.lines;
    this.dispose();
    return estimate;
  }

  dispose(): void {
    if (this.engine === 0) return;
    this.m.dedupDestroy(this.engine);
    this.engine = 0;
    this.hasher.dispose();
  }

  private open(): number {
    if (this.engine === 0) throw new CuckooFilterError('DISPOSED', 'this DistinctKeyCounter was disposed');
    return this.engine;
  }

  private check(code: number): void {
    if (code === ErrorCode.ok) return;
    let error = errorFromModule(this.m);
    // As a run says it (LineDeduper): the count holds a line whole too.
    if (error.code === 'OUT_OF_MEMORY' && /\ba line\b/.test(error.message))
      error = new CuckooFilterError(
        'OUT_OF_MEMORY',
        `${error.message} (the WebAssembly heap holds at most 4 GiB, and ${LONG_LINES})`,
      );
    this.dispose();
    throw error;
  }
}

// What mostlyRepeats reads: RUN_SAMPLES stretches of RUN_SAMPLE_BYTES, spread evenly over the inputs.
const RUN_SAMPLES = 8;
const RUN_SAMPLE_BYTES = 32 << 10;
// A sample of fewer records than this says nothing either way (long records); the samples together must
// hold RUN_MIN_RECORDS (else a count pays for itself).
const RUN_SAMPLE_MIN_RECORDS = 8;
const RUN_MIN_RECORDS = 256;
// The share of a sample's records that repeat the record before them from which a file is not counted.
const RUN_SHARE_UNCOUNTED = 0.95;

// A regular file's bytes from `at` into `into`, opened without waiting (a path that became a FIFO since it
// was checked would hold the main thread, signals too, in an open that waits for a writer): fewer bytes, or
// none, from anything but a regular file.
function readStart(file: string, into: Buffer, at: number): number {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    return fstatSync(fd).isFile() ? readSync(fd, into, 0, into.length, at) : 0;
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether the regular files' records mostly repeat the record before them, by samples of their bytes:
 * in each of 8 stretches of 32 KiB spread over them that holds 8 records or more, at least
 * RUN_SHARE_UNCOUNTED of its records repeat the record before them (a record is compared whole: fields
 * and `\r` ends only make more records alike), and the samples hold 256 records or more. Then `dedup` does
 * not count the files' distinct keys first: such a record is decided without the filter (line_dedup.hpp),
 * so a count would cost about as much as the run (docs/PERFORMANCE.md, "A file of runs is not counted"),
 * and there are few keys to make room for. A wrong guess (runs where the samples fall, distinct keys
 * elsewhere) costs time, and memory either way, never a line: the filter then doubles from the start
 * the file's size gives, as for a file too large to count. False when a file cannot be read (the count or
 * the run says why).
 */
export function mostlyRepeats(files: readonly string[], recordEnd: number): boolean {
  let records = 0;
  try {
    const sizes = files.map((file) => statSync(file).size);
    const total = sizes.reduce((sum, size) => sum + size, 0);
    const sample = Buffer.allocUnsafe(RUN_SAMPLE_BYTES);
    for (let i = 0; i < RUN_SAMPLES; i++) {
      let at = Math.floor((total * i) / RUN_SAMPLES);
      let index = 0;
      while (index < sizes.length - 1 && at >= sizes[index]) at -= sizes[index++];
      const bytes = sample.subarray(0, readStart(files[index], sample, at));
      // From a record's start: the file's, or the first after a record end.
      let from = at === 0 ? 0 : bytes.indexOf(recordEnd) + 1;
      if (from === 0 && at !== 0) continue;
      let held = 0; // this sample's records (each after the sample's first)
      let repeats = 0;
      let previous = -1;
      let previousEnd = -1;
      for (let end = bytes.indexOf(recordEnd, from); end !== -1; from = end + 1, end = bytes.indexOf(recordEnd, from)) {
        if (previous >= 0) {
          held++;
          if (end - from === previousEnd - previous && bytes.compare(bytes, previous, previousEnd, from, end) === 0)
            repeats++;
        }
        previous = from;
        previousEnd = end;
      }
      if (held >= RUN_SAMPLE_MIN_RECORDS && repeats < RUN_SHARE_UNCOUNTED * held) return false;
      records += held;
    }
  } catch {
    return false;
  }
  return records >= RUN_MIN_RECORDS;
}

/**
 * The plan of a run of the files not counted first, as planDedup makes it from their first block (what
 * the run's LineDeduper sees first), and whether it reaches every line they can hold (linesToReach). It
 * does at the default rate; at the lowest rates it does not for large files (docs/DEDUP.md: from about
 * 1 GB at 1e-10, 530 MB at 5e-11, 256 MB at 2.5e-11): a start raised for such a size could not double, and
 * the plan keeps one that reaches less (an outside pass: at 2.1e-11 a 280 MB file of runs with 200,000
 * distinct lines between the samples stopped at 131,084 lines, "the filter is full"). Then the count
 * sizes the filter. Undefined when the files cannot be read.
 */
export function uncountedPlan(
  options: LineDeduperOptions,
  files: readonly string[],
): (DedupPlan & { reaches: boolean }) | undefined {
  let first = Buffer.alloc(0);
  try {
    for (const file of files) {
      const block = Buffer.allocUnsafe(BLOCK);
      first = block.subarray(0, readStart(file, block, 0));
      if (first.length > 0) break;
    }
  } catch {
    return undefined;
  }
  const plan = planDedup(options, first);
  return { ...plan, reaches: plan.reach >= linesToReach(options.inputBytes) };
}

/** The record options a count takes (a LineDeduper's). */
export type CountRules = Pick<LineDeduperOptions, 'zeroTerminated' | 'fields' | 'delimiter' | 'csv'>;
/** What count_worker.js is given. */
export interface CountJob {
  /** The input cut into pieces, each counted by the thread that claims it first (claimPieces). */
  pieces: FilePart[][];
  /** An Int32Array's memory: a piece's claimant (0 while unclaimed, else its thread number from 1). */
  claims: SharedArrayBuffer;
  /** This worker's thread number (2 and up; the main thread's is 1). */
  thread: number;
  rules: CountRules;
  recordEnd: number;
}

/**
 * The pieces `thread` claims, in order, as it comes to each: a piece is counted by the first thread to
 * claim it (compareExchange on its claim), so a thread that starts late (a worker loads the module, about
 * as long as counting 90 MB) counts fewer pieces and no thread waits for another's share.
 */
export function* claimPieces(claims: Int32Array, thread: number): Generator<number> {
  for (let piece = 0; piece < claims.length; piece++)
    if (Atomics.compareExchange(claims, piece, 0, thread) === 0) yield piece;
}
/** What count_worker.js sends: progress after each block, then its registers, or why it failed. */
export type CountMessage =
  | { bytes: number; lines: number }
  | { registers: Uint8Array; lines: number }
  | { failed: string; message: string };

export interface CountRun {
  /** Regular files, read from their start (readableTwice). */
  files: readonly string[];
  rules: CountRules;
  /** The count's threads: this one and threads - 1 workers, each counting the pieces it claims first. */
  threads: number;
  /** On several threads, the pieces' most bytes (default COUNT_PIECE_BYTES; tests take less). */
  pieceBytes?: number;
  /** Read into these (the main thread's run). */
  heap: BlockBuffers;
  /** Calls into the core, through the command's mapping of INVALID_ARGUMENT to its errors. */
  usage<T>(call: () => T): T;
  /** The main thread's run is reading this file now (for the messages). */
  reading(file: string): void;
  /** Progress: bytes read since the last call, and records counted so far by every thread. */
  progress?(bytes: number, lines: number): void;
}

// The count's pieces are at most this long (more pieces than threads): a thread claims the next piece when
// it is done with one, so the threads end within about a piece's time of each other (16 MiB: 10-20 ms).
const COUNT_PIECE_BYTES = 16 << 20;

/**
 * The distinct keys of the inputs, about (DistinctKeyCounter), and their records. With threads > 1 and no
 * CSV (a CSV record may hold newlines, so a file cannot be cut at one), the inputs are cut at record ends
 * into pieces of at most COUNT_PIECE_BYTES (splitInputs), counted at once by this thread and threads - 1
 * workers, each piece by the thread that claims it first (claimPieces), and their counts merged: the same
 * estimate as one thread's, to the bit. A worker that cannot start or dies (too many threads for the
 * user's limit, no memory for its module) leaves the pieces it claimed to this thread: only an input's
 * error is the count's error.
 */
export async function countDistinctKeys(run: CountRun): Promise<{ estimate: number; lines: number }> {
  const recordEnd = run.rules.zeroTerminated && !run.rules.csv ? 0 : 10;
  const counter = run.usage(() => new DistinctKeyCounter(run.rules));
  const workers: Worker[] = [];
  try {
    const threads = run.rules.csv ? 1 : run.threads;
    const pieces = splitInputs(
      run.files,
      recordEnd,
      threads,
      threads > 1 ? (run.pieceBytes ?? COUNT_PIECE_BYTES) : Infinity,
    );
    const claims = new Int32Array(new SharedArrayBuffer(4 * pieces.length));
    const workerLines = new Array<number>(threads).fill(0);
    const workerBytes = new Array<number>(threads).fill(0); // what each worker's progress reported
    let failed: Error | undefined; // an input's error in a worker, which stops this thread's reading too
    const sum = (lines: number) => workerLines.reduce((a, b) => a + b, lines);
    // Each worker's registers, or undefined when this thread is to count the pieces it claimed.
    const results = Array.from({ length: pieces.length > 1 ? threads - 1 : 0 }, (_, i) => {
      const thread = i + 2;
      let worker: Worker;
      try {
        // Not this process's Node options (execArgv): some are refused in a worker (--input-type).
        worker = new Worker(new URL('./count_worker.js', import.meta.url), {
          workerData: {
            pieces,
            claims: claims.buffer as SharedArrayBuffer,
            thread,
            rules: run.rules,
            recordEnd,
          } satisfies CountJob,
          execArgv: [],
          stdout: true, // the module's own messages (a failed instantiation prints some) are not the command's
          stderr: true,
        });
      } catch {
        return { thread, registers: Promise.resolve(undefined) };
      }
      workers.push(worker);
      const registers = new Promise<Uint8Array | undefined>((resolve, reject) => {
        let settled = false;
        const settle = (registers: Uint8Array | undefined, error?: Error) => {
          if (settled) return; // its count is in: the thread's end after it is not a failure
          settled = true;
          if (!registers) workerLines[thread - 1] = 0; // this thread counts its pieces again
          if (error) {
            failed ??= error;
            reject(error);
          } else resolve(registers);
        };
        worker.on('message', (message: CountMessage) => {
          if ('failed' in message)
            settle(undefined, message.failed === 'input' ? new InputError(message.message) : undefined);
          else if ('registers' in message) {
            workerLines[thread - 1] = message.lines;
            settle(message.registers);
          } else {
            workerLines[thread - 1] = message.lines;
            workerBytes[thread - 1] += message.bytes;
            run.progress?.(message.bytes, sum(counter.lines));
          }
        });
        worker.on('error', () => settle(undefined));
        worker.on('exit', () => settle(undefined));
      });
      // Rejections are taken at once (a failing worker must not be an unhandled rejection while this
      // thread reads), and thrown below.
      registers.catch(() => {});
      return { thread, registers };
    });
    const nextFile = (file: string) => {
      run.usage(() => counter.nextInput());
      run.reading(file);
    };
    let counted = 0; // pieces counted here
    let shown = 0; // bytes a dead worker's progress reported, which its pieces counted here do not report again
    const countHere = async (piece: FilePart[]) => {
      // The last record of the piece before ends first (it ended at a cut, or its file).
      if (counted++ > 0) run.usage(() => counter.nextInput());
      run.reading(piece[0]?.file ?? run.files[0]);
      for await (const block of readBlocks(piece, run.heap, recordEnd, true, nextFile)) {
        if (failed) throw failed;
        const bytes = block.length; // before the push, as in the run
        run.usage(() => counter.push(block));
        const again = Math.min(bytes, shown);
        shown -= again;
        run.progress?.(bytes - again, sum(counter.lines));
      }
    };
    for (const piece of claimPieces(claims, 1)) await countHere(pieces[piece]);
    for (const { thread, registers } of results) {
      const theirs = await registers;
      if (theirs) {
        counter.merge(theirs);
        continue;
      }
      // The worker is gone: the pieces it claimed are counted here, whole.
      shown = workerBytes[thread - 1];
      for (const [piece, claimant] of claims.entries()) if (claimant === thread) await countHere(pieces[piece]);
    }
    const lines = sum(0);
    const estimate = run.usage(() => counter.end());
    return { estimate, lines: lines + counter.lines };
  } finally {
    counter.dispose();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
