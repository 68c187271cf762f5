// The Node stream adapter of the line deduplicator: `createReadStream(a).pipe(dedupLines()).pipe(out)`.
// Only the package's Node entry (node.ts) exports it, so that browser bundles never see node:stream.
import { Transform, type TransformCallback } from 'node:stream';
import {
  checkDedupOptions,
  LineDeduper,
  type LineDeduperOptions,
  type LineDedupStats,
  statsOf,
  WINDOW_ON_ONE_THREAD,
} from './dedup.js';
import { CuckooFilterError, invalid } from './errors.js';
import { describe } from './key_codec.js';
import type { PartitionedRun } from './partitioned.js';

/** dedupLines()'s options: the deduplicator's, and the threads its run takes. */
export interface DedupLinesOptions extends LineDeduperOptions {
  /**
   * 2: the keys are shared between this thread's filter and a helper thread's (a worker_threads Worker),
   * which decides its share while this thread reads, splits and hashes the next chunk. The same output
   * and stats as one thread's but for the lines wrongly dropped (each filter's false positives are its
   * own: at a loose fpRate other lines, as many expected; at the default rate, the same bytes), and the
   * filters' expected wrong drops add up to one filter's; it pays from
   * about 100 MB of input (docs/DEDUP.md, "Several threads"), and not without a second core. A chunk's
   * lines then come out after the next chunk has come in, or 10 ms after it when none comes (the first
   * chunk's also wait for the helper to start, about 0.1 s). Until the stream ends, stats' filterBytes,
   * wrongDropBound and plan are this thread's filter's; at the end, both filters'. Not with seen (a run on
   * two threads has a filter a thread). When the helper cannot start (a limit on threads), the run takes
   * one thread. Default 1.
   */
  threads?: 1 | 2;
}

/** A Node Transform from bytes to the bytes of the new lines, with the deduplicator's stats. */
export class LineDedupTransform extends Transform {
  private deduper: LineDeduper | undefined;
  private run: PartitionedRun | undefined;
  private readonly options: LineDeduperOptions | undefined;
  private readonly threads: number;
  private settleTimer: ReturnType<typeof setTimeout> | undefined;
  private starting: Promise<void> | undefined; // the engine's making, from the first chunk or the end
  // A run's lines are views of the heap, valid until its next call: pushed as copies.
  private readonly keep = (lines: Uint8Array) => {
    this.push(Buffer.from(lines));
  };

  constructor(options?: DedupLinesOptions) {
    super();
    // bad options throw here, not at the first write
    let rest: unknown = options;
    let threads: unknown;
    if (typeof options === 'object' && options !== null && 'threads' in options) {
      ({ threads, ...rest } = options);
    }
    this.options = checkDedupOptions(rest, ['threads']);
    if (threads !== undefined && threads !== 1 && threads !== 2)
      throw invalid(`threads must be 1 or 2, got ${describe(threads)}`);
    this.threads = threads ?? 1;
    if (this.threads === 2 && this.options.seen)
      throw invalid('threads: 2 goes without seen (a run on two threads has a filter a thread)');
    if (this.threads === 2 && this.options.window !== undefined)
      throw invalid(`threads: 2 goes without window (${WINDOW_ON_ONE_THREAD})`);
  }

  /** Counts so far; final once the stream has ended ('end' on the readable side). */
  get stats(): LineDedupStats {
    return this.run ? this.run.stats : statsOf(this.deduper);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.withEngine(callback, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.withEngine(callback, undefined);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.unsettled();
    // After an engine still being made (the module loading, the helper starting), it is freed too; the
    // helper has ended before the stream says it is destroyed: no thread is left running.
    (this.starting ?? Promise.resolve())
      .then(async () => {
        this.deduper?.dispose();
        await this.run?.dispose();
      })
      .catch(() => {})
      .then(() => callback(error));
  }

  // A chunk, or the end (undefined), once the engine is there (made at the first).
  private withEngine(callback: TransformCallback, chunk: Buffer | undefined): void {
    this.unsettled();
    if (this.deduper || this.run) {
      this.call(callback, chunk);
      return;
    }
    this.starting ??= this.begin().then((engine) => {
      if (engine instanceof LineDeduper) this.deduper = engine;
      else this.run = engine;
    });
    this.starting.then(
      // Destroyed while the engine was made: _destroy frees it.
      () => this.destroyed || this.call(callback, chunk),
      (error: Error) => callback(error),
    );
  }

  private call(callback: TransformCallback, chunk: Buffer | undefined): void {
    const run = this.run;
    if (run) {
      // A run on two threads: after a chunk, the lines it holds back are handed out if no other chunk
      // comes within run.settleMs (a slow source's lines would wait for its next chunk).
      (chunk ? run.push(chunk, false, this.keep) : run.end(this.keep)).then(
        () => {
          if (chunk) {
            this.settleTimer = setTimeout(() => {
              this.settleTimer = undefined;
              run.settle(this.keep).catch((error: Error) => this.destroy(error));
            }, run.settleMs);
          }
          callback();
        },
        (error: Error) => callback(error),
      );
      return;
    }
    const d = this.deduper!;
    let out: Uint8Array;
    try {
      if (chunk) {
        out = d.push(chunk);
      } else {
        out = d.end();
        d.dispose(); // the stats stay
      }
    } catch (error) {
      callback(error as Error);
      return;
    }
    callback(null, out.length > 0 ? Buffer.from(out.buffer, out.byteOffset, out.length) : undefined);
  }

  private unsettled(): void {
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
  }

  // The run's engine: a run on two threads when asked for and its helper starts, else one thread's.
  private async begin(): Promise<LineDeduper | PartitionedRun> {
    if (this.threads === 2) {
      // Loaded when asked for: a run on one thread, the default, does without them.
      const [{ PartitionedRun }, { nodeHelperLink }] = await Promise.all([
        import('./partitioned.js'),
        import('./node_helper.js'),
      ]);
      try {
        return await PartitionedRun.start(this.options ?? {}, nodeHelperLink());
      } catch (error) {
        // A filter's error (out of memory, a bad option) is the run's; a helper that cannot start is not.
        if (error instanceof CuckooFilterError) throw error;
      }
    }
    return LineDeduper.create(this.options);
  }
}

/**
 * A Node Transform that deduplicates lines (see LineDeduper): `readable.pipe(dedupLines()).pipe(out)`;
 * `dedupLines({ threads: 2 })` shares the work with a helper thread (DedupLinesOptions).
 */
export function dedupLines(options?: DedupLinesOptions): LineDedupTransform {
  return new LineDedupTransform(options);
}
