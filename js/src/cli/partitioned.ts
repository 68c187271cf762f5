// The `cuckoo` command's run on several threads (line_dedup.hpp, "Partitioned runs"): the keys are shared
// between the main thread's filter and a helper thread's (dedup_worker.ts). The main thread reads, splits
// and hashes every record, decides its share of the keys and sends the helper the hashes of the others;
// while the helper decides them, the main thread goes on with the next block, and then writes the last
// block's lines with the helper's verdicts. The output is one thread's, byte for byte (a key's records all
// go to one filter, in order), and so are the counts; the filters' expected wrong drops add up.
import { Worker } from 'node:worker_threads';
import { type LineDedupStats, type LineDeduperOptions, planDedup } from '../dedup.js';
import { CuckooFilterError, type CuckooFilterErrorCode } from '../errors.js';
import { LineDeduper } from '../node.js';
import { InputError } from './io.js';

/** What dedup_worker.js is given: the options of its deduplicator (its share of the run's). */
export interface HelperJob {
  options: LineDeduperOptions;
}
/**
 * What the main thread sends a helper: the hashes of its share from one call (`count` of 8 bytes at the
 * start of `hashes`, a verdict byte each to be written at the start of `verdicts`), or the end.
 */
export type HelperCall = { hashes: SharedArrayBuffer; count: number; verdicts: SharedArrayBuffer } | { end: true };
/** A helper's answer: ready once, then that a call's verdicts are written, its stats at the end, or its failure. */
export type HelperReply =
  | { ready: true }
  | { decided: number }
  | { stats: LineDedupStats }
  | { failed: string; message: string };

/** Writes a call's lines (a view of the heap, valid until the next call). */
export type Keep = (lines: Uint8Array) => Promise<void>;

/**
 * The main thread's share of the keys: it also reads, splits, hashes and writes every record, where the
 * helper only looks its keys up (measured on 10M log lines: docs/DEDUP.md, "Several threads").
 */
export const MAIN_SHARE = 0.15;
// Calls of the main deduplicator whose lines wait for the helper's verdicts: one, so that the helper
// decides a block's keys while the main thread reads and hashes the next (the engine allows two).
const LAG = 1;
// The most a block read into the command's own buffers (not the heap) takes: io.ts's BLOCK.
const COPY_BLOCK = 1 << 20;
// The hashes of a call go to the helper, and its verdicts come back, in memory both threads share, reused
// by turns (a call's slot is free again once the call is resolved: at most LAG + 1 calls are out). A new
// buffer transferred with each message was freed only when the helper's JavaScript next collected its
// garbage, which it makes little of: 20M lines' hashes (136 MB in all) held about 40 MiB of the process.
const SLOTS = LAG + 2;

/** Shared memory of at least `bytes`: `slot` if it is large enough, else a new one, larger by half. */
function sharedAtLeast(slot: SharedArrayBuffer | undefined, bytes: number): SharedArrayBuffer {
  if (slot && slot.byteLength >= bytes) return slot;
  return new SharedArrayBuffer(Math.max(bytes, Math.floor((slot?.byteLength ?? 0) * 1.5), 1 << 16));
}

/**
 * A partitioned run with one helper thread. Each call hands the lines it completes to `keep`, a call
 * late; after end(), stats. A failed call leaves the run failed (every later call throws its error).
 */
export class PartitionedRun {
  private readonly main: LineDeduper;
  private readonly worker: Worker;
  private readonly replies: HelperReply[] = [];
  private waiting: ((reply: HelperReply) => void) | undefined;
  private inFlight = 0; // calls whose hashes the helper has, not yet resolved
  private readonly slots: { hashes?: SharedArrayBuffer; verdicts?: SharedArrayBuffer }[] = Array.from(
    { length: SLOTS },
    () => ({}),
  );
  private sent = 0; // calls whose hashes went to the helper
  private queue: Promise<void> = Promise.resolve();
  private helperStats: LineDedupStats | undefined;
  private failure: Error | undefined;
  // Blocks that are not in the heap are copied into these, by turns: a call's block must stay where it
  // is until the call is resolved, a call later (the scratch memory a push copies into would not).
  private copies: { view(i: number): Uint8Array } | undefined;
  private copyTurn = 0;

  /**
   * `options`: the whole run's (its capacity and inputBytes are split between the threads by their
   * shares). Resolves once the helper has loaded the module; rejects when it cannot start.
   */
  static async start(options: LineDeduperOptions): Promise<PartitionedRun> {
    const run = new PartitionedRun(options);
    const first = await run.next();
    if (!('ready' in first)) {
      await run.dispose();
      throw helperError(first);
    }
    return run;
  }

  private constructor(options: LineDeduperOptions) {
    const cut = Math.round(MAIN_SHARE * 2 ** 32);
    // Each thread's part of a count: the main thread's rounded up, the helper's the rest (at least 1).
    const part = (main: boolean, n: number | undefined) => {
      if (n === undefined) return undefined;
      const own = Math.max(1, Math.ceil(n * MAIN_SHARE));
      return main ? own : Math.max(1, n - own);
    };
    // An input of unknown size: each filter starts at its share of one thread's start (two starts of
    // 65,536 lines took 20M unique lines through a pipe to 288 MiB, one thread's 234).
    const capacity = options.capacity ?? (options.inputBytes === undefined ? planDedup(options).capacity : undefined);
    const shareOf = (main: boolean): LineDeduperOptions => ({
      ...options,
      capacity: part(main, capacity),
      inputBytes: part(main, options.inputBytes),
    });
    this.main = new LineDeduper(shareOf(true));
    this.main.share(Uint32Array.of(cut));
    // Not this process's Node options (execArgv): some are refused in a worker (--input-type).
    this.worker = new Worker(new URL('./dedup_worker.js', import.meta.url), {
      workerData: { options: shareOf(false) } satisfies HelperJob,
      execArgv: [],
      stdout: true, // the module's own messages are not the command's
      stderr: true,
    });
    const take = (reply: HelperReply) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting) waiting(reply);
      else this.replies.push(reply);
    };
    this.worker.on('message', take);
    const gone = (why: string) => take({ failed: 'error', message: why });
    this.worker.on('error', (error) => gone(`the run's helper thread failed: ${error.message}`));
    this.worker.on('exit', (code) => gone(`the run's helper thread ended (status ${code})`));
  }

  /** A block: `inHeap` when it is a view of the module's heap that stays put until the call after the next. */
  push(block: Uint8Array, inHeap: boolean, keep: Keep): Promise<void> {
    if (inHeap || block.length === 0) return this.step(() => this.main.pushInHeap(block), keep);
    if (block.length > COPY_BLOCK) return this.step(() => this.main.pushView(block), keep, true);
    this.copies ??= LineDeduper.inputBlocks(COPY_BLOCK, 2);
    if (!this.copies) throw new CuckooFilterError('OUT_OF_MEMORY', 'no memory for the input buffers');
    const copy = this.copies.view(this.copyTurn).subarray(0, block.length);
    this.copyTurn ^= 1;
    copy.set(block);
    return this.step(() => this.main.pushInHeap(copy), keep);
  }

  /**
   * The lines of every call so far, written now rather than a call later: for when the next block is a
   * while in coming (a slow stream's lines would wait for it).
   */
  settle(keep: Keep): Promise<void> {
    return this.guard(async () => {
      while (this.inFlight > 0) await this.resolveOne(keep);
    });
  }

  /** The next input (the main deduplicator's nextInput()). */
  nextInput(keep: Keep): Promise<void> {
    return this.step(() => this.main.nextInput(), keep);
  }

  /** The end: `keep` is given the last lines; then the helper's stats are in. */
  async end(keep: Keep): Promise<void> {
    await this.step(() => this.main.end(), keep);
    await this.guard(async () => {
      while (this.inFlight > 0) await this.resolveOne(keep);
      this.worker.postMessage({ end: true } satisfies HelperCall);
      const reply = await this.next();
      if (!('stats' in reply)) throw helperError(reply);
      this.helperStats = reply.stats;
    });
  }

  /** The run's counts: the main thread's, with both filters' memory and expected wrong drops. */
  get stats(): LineDedupStats {
    const s = this.main.stats;
    const h = this.helperStats;
    if (!h) return s;
    return {
      ...s,
      wrongDropBound: s.wrongDropBound + h.wrongDropBound,
      filterBytes: s.filterBytes + h.filterBytes,
      doublings: Math.max(s.doublings, h.doublings),
      plan: s.plan &&
        h.plan && {
          ...s.plan,
          capacity: s.plan.capacity + h.plan.capacity,
          maxDoublings: Math.min(s.plan.maxDoublings, h.plan.maxDoublings),
        },
    };
  }

  /** After end(): ends the helper (its stats are in). */
  async stop(): Promise<void> {
    await this.worker.terminate();
  }

  /** A partitioned run has a filter a thread, none the run's (the command does not partition --seen). */
  exportFilter(): Uint8Array {
    throw new CuckooFilterError('INVALID_ARGUMENT', 'a partitioned run has no single filter to export');
  }

  /** Frees the main deduplicator and ends the helper. */
  async dispose(): Promise<void> {
    this.main.dispose();
    await this.worker.terminate();
  }

  // One call of the main deduplicator: the hashes it gives the helper are sent, and the calls LAG back are
  // resolved (a block with a large copy: every call before it, as its bytes lie in the scratch memory).
  private step(here: () => Uint8Array, keep: Keep, alone = false): Promise<void> {
    return this.guard(async () => {
      if (alone) while (this.inFlight > 0) await this.resolveOne(keep);
      const before = this.main.pendingCalls;
      here();
      if (this.main.pendingCalls > before) {
        const outgoing = this.main.outgoing(1);
        const slot = this.slots[this.sent++ % SLOTS];
        slot.hashes = sharedAtLeast(slot.hashes, outgoing.length);
        slot.verdicts = sharedAtLeast(slot.verdicts, outgoing.length / 8);
        new Uint8Array(slot.hashes).set(outgoing);
        const call = { hashes: slot.hashes, count: outgoing.length / 8, verdicts: slot.verdicts };
        this.worker.postMessage(call satisfies HelperCall);
        this.inFlight++;
      }
      while (this.inFlight > (alone ? 0 : LAG)) await this.resolveOne(keep);
    });
  }

  // The oldest call's lines, once the helper's verdicts for its hashes are in.
  private async resolveOne(keep: Keep): Promise<void> {
    const reply = await this.next();
    if (!('decided' in reply)) throw helperError(reply);
    const slot = this.slots[(this.sent - this.inFlight) % SLOTS];
    this.inFlight--;
    const out = this.main.resolve([new Uint8Array(slot.verdicts!, 0, reply.decided)]);
    if (out.length > 0) await keep(out);
  }

  // The run's operations, one at a time in the order they were asked for (settle() may be asked for while
  // a nextInput() waits for the helper); after a failure, each throws it.
  private guard(work: () => Promise<void>): Promise<void> {
    const run = this.queue.then(async () => {
      if (this.failure) throw this.failure;
      try {
        await work();
      } catch (error) {
        this.failure = error as Error;
        throw error;
      }
    });
    this.queue = run.catch(() => {});
    return run;
  }

  private next(): Promise<HelperReply> {
    const reply = this.replies.shift();
    if (reply) return Promise.resolve(reply);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }
}

function helperError(reply: HelperReply): Error {
  if ('failed' in reply) {
    const codes = ['INVALID_ARGUMENT', 'BAD_FORMAT', 'DISPOSED', 'OUT_OF_MEMORY', 'CAPACITY_EXCEEDED', 'NOT_READY'];
    return codes.includes(reply.failed)
      ? new CuckooFilterError(reply.failed as CuckooFilterErrorCode, reply.message)
      : new InputError(`${reply.message} (--threads 1 runs on one thread)`);
  }
  return new InputError("the run's helper thread answered out of step");
}
