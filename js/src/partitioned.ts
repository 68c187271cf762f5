// A line deduplication run on two threads (line_dedup.hpp, "Partitioned runs"): the keys are shared between
// this thread's filter and a helper thread's. This thread reads, splits and hashes every record, decides its
// share of the keys and sends the helper the hashes of the others; while the helper decides them, this
// thread goes on with the next block, and then hands out the last block's lines with the helper's verdicts.
// The output is one thread's (a key's records all go to one filter, in order), and so are the counts, but
// for the lines wrongly dropped: each filter's false positives are its own, and the filters' expected
// wrong drops add up to one filter's. The helper is a Worker of the environment's (Node's
// worker_threads: node_helper.ts; a Web Worker in a page), reached through a HelperLink; serveHelper() is
// its side. Used by the `cuckoo` command, dedupLines({ threads }) in Node and the dedup page.
import { type LineDedupStats, LineDeduper, type LineDeduperOptions, planDedup, WINDOW_ON_ONE_THREAD } from './dedup.js';
import { CuckooFilterError, type CuckooFilterErrorCode } from './errors.js';
import { ready } from './wasm_module.js';

/**
 * What the main thread sends a helper: first its deduplicator's options (its share of the run's); then the
 * hashes of its share from one call (`count` of 8 bytes at the start of `hashes`; with shared memory, a
 * verdict byte each is to be written at the start of `verdicts`; with the first, `sample`, the start of the
 * input, which the helper's filter is planned from as the main one is), or the end.
 */
export type HelperCall =
  | { job: LineDeduperOptions }
  | { hashes: ArrayBufferLike; count: number; verdicts?: SharedArrayBuffer; sample?: ArrayBuffer }
  | { end: true };
/**
 * A helper's answer: ready once, then that a call's verdicts are written (or, without shared memory, the
 * verdicts themselves), its stats at the end, or its failure.
 */
export type HelperReply =
  | { ready: true }
  | { decided: number; verdicts?: ArrayBuffer }
  | { stats: LineDedupStats }
  | { failed: string; message: string };

/** The main thread's side of a helper Worker. */
export interface HelperLink {
  post(call: HelperCall, transfer: ArrayBuffer[]): void;
  /** Called once: `take` gets every reply, and a failure reply when the Worker fails or ends on its own. */
  listen(take: (reply: HelperReply) => void): void;
  terminate(): Promise<unknown> | undefined;
  /**
   * Whether the helper keeps the process alive (Node: ref() and unref()): while a reply is awaited, and not
   * while the run waits for its caller, so that a stream left unended does not keep a process running.
   */
  hold?(busy: boolean): void;
}

/** Writes a call's lines (a view of the heap, valid until the next call). */
export type Keep = (lines: Uint8Array) => Promise<void> | void;

/**
 * The main thread's share of the keys: it also reads, splits, hashes and writes every record, where the
 * helper only looks its keys up (measured on 10M log lines: docs/DEDUP.md, "Several threads").
 */
export const MAIN_SHARE = 0.15;
/**
 * Inputs of known size take a helper from this size (the `cuckoo` command's files, the dedup page's).
 * Unique lines from a file (2026-11-28, three runs): 100 MB took 0.62-0.70 s on two threads and 0.58-0.70 s
 * on one (and 20 MB more memory); 200 MB 0.72-0.83 s against 0.81-1.06 s; 1 GB 2.64-3.01 s against
 * 3.59-4.19 s.
 */
export const PARTITION_FROM_BYTES = 128 << 20;
/**
 * How long a run's caller waits for the next block before having the lines held back handed out
 * (settle()): a slow stream's lines (`tail -f`) would otherwise wait for its next block.
 */
export const SETTLE_MS = 10;
// Calls of the main deduplicator whose lines wait for the helper's verdicts: one, so that the helper
// decides a block's keys while the main thread reads and hashes the next (the engine allows two).
const LAG = 1;
// A block not in the heap is copied into the run's own heap buffers this much a call (push()).
const COPY_BLOCK = 1 << 20;
// The hashes of a call go to the helper, and its verdicts come back, in memory both threads share, reused
// by turns (a call's slot is free again once the call is resolved: at most LAG + 1 calls are out). A new
// buffer transferred with each message was freed only when the helper's JavaScript next collected its
// garbage, which it makes little of: 20M lines' hashes (136 MB in all) held about 40 MiB of the process.
// A page that is not cross-origin isolated has no SharedArrayBuffer: there each call transfers its own.
const SLOTS = LAG + 2;

/** Shared memory of at least `bytes`: `slot` if it is large enough, else a new one, larger by half. */
function sharedAtLeast(slot: SharedArrayBuffer | undefined, bytes: number): SharedArrayBuffer {
  if (slot && slot.byteLength >= bytes) return slot;
  return new SharedArrayBuffer(Math.max(bytes, Math.floor((slot?.byteLength ?? 0) * 1.5), 1 << 16));
}

const sharedMemory = (): boolean => typeof SharedArrayBuffer === 'function';

/**
 * A partitioned run with one helper thread. Each call hands the lines it completes to `keep`, a call
 * late; after end(), stats. A failed call leaves the run failed (every later call throws its error).
 */
export class PartitionedRun {
  private readonly main: LineDeduper;
  private readonly link: HelperLink;
  /** SETTLE_MS, for a caller that loads this module only when it runs on two threads. */
  readonly settleMs = SETTLE_MS;
  private readonly failed: (message: string) => Error;
  private readonly replies: HelperReply[] = [];
  private waiting: ((reply: HelperReply) => void) | undefined;
  private inFlight = 0; // calls whose hashes the helper has, not yet resolved
  private readonly shared = sharedMemory();
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
  private copies: { view(i: number): Uint8Array; free(): void } | undefined;
  private copyTurn = 0;
  // The input's first block (at most COPY_BLOCK bytes), for the helper's plan: sent with its first hashes.
  private sample: ArrayBuffer | undefined;

  /**
   * `options`: the whole run's (its capacity and inputBytes are split between the threads by their
   * shares; not `seen`: a run has a filter a thread). `link`: a new helper Worker's. `failed` makes the
   * error of a helper that fails or ends (default: an Error with its message). Resolves once the helper
   * has loaded the module; rejects when it cannot start (and ends it).
   */
  static async start(
    options: LineDeduperOptions,
    link: HelperLink,
    failed: (message: string) => Error = (message) => new Error(message),
  ): Promise<PartitionedRun> {
    let run: PartitionedRun;
    try {
      await ready();
      run = new PartitionedRun(options, link, failed);
    } catch (error) {
      await link.terminate();
      throw error;
    }
    const first = await run.next();
    if (!('ready' in first)) {
      await run.dispose();
      throw run.helperError(first);
    }
    link.hold?.(false);
    return run;
  }

  private constructor(options: LineDeduperOptions, link: HelperLink, failed: (message: string) => Error) {
    if (options.seen) throw new CuckooFilterError('INVALID_ARGUMENT', 'a run on two threads goes without seen');
    if (options.window !== undefined)
      throw new CuckooFilterError(
        'INVALID_ARGUMENT',
        `a run on two threads goes without window (${WINDOW_ON_ONE_THREAD})`,
      );
    this.link = link;
    this.failed = failed;
    const cut = Math.round(MAIN_SHARE * 2 ** 32);
    // Each thread's part of a count: its share, and six standard deviations of its share of n keys drawn
    // at random (a thread's keys are the distinct keys whose hash falls in its share), at most n. So a
    // thread's filter reaches its keys wherever one thread's would reach them all (but for odds of about
    // 1e-9): with the shares alone, near the limit of a rate, two threads refused 8 of 10 sets of lines
    // that one thread took. The other way, two threads may take lines past where one thread's filter is
    // full (by the margin, and the room of each filter's smallest table): docs/DEDUP.md.
    const part = (main: boolean, n: number | undefined) => {
      if (n === undefined) return undefined;
      const share = main ? MAIN_SHARE : 1 - MAIN_SHARE;
      const margin = 6 * Math.sqrt(n * MAIN_SHARE * (1 - MAIN_SHARE));
      return Math.max(1, Math.min(n, Math.ceil(n * share + margin)));
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
    link.listen((reply) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting) waiting(reply);
      else this.replies.push(reply);
    });
    link.post({ job: shareOf(false) }, []);
  }

  /**
   * A block: `inHeap` when it is a view of the module's heap that stays put until the call after the next
   * (at most a piece of the deduplicator's: the `cuckoo` command's blocks). Any other block is copied into
   * the run's own heap buffers, COPY_BLOCK bytes a call.
   */
  async push(block: Uint8Array, inHeap: boolean, keep: Keep): Promise<void> {
    // An empty block completes no line: nothing to do (it is no view of the heap either).
    if (block.length === 0) return this.guard(async () => {});
    // Copied before any call: a view of the heap is detached when the heap grows.
    // (A copy of its own: a Node Buffer's slice() is a view, whose buffer is a shared pool.)
    if (this.sent === 0 && this.sample === undefined)
      this.sample = new Uint8Array(block.subarray(0, COPY_BLOCK)).buffer;
    if (inHeap) return this.step(() => this.main.pushInHeap(block), keep);
    this.copies ??= LineDeduper.inputBlocks(COPY_BLOCK, 2);
    if (!this.copies) throw new CuckooFilterError('OUT_OF_MEMORY', 'no memory for the input buffers');
    const copies = this.copies;
    for (let at = 0; at < block.length; at += COPY_BLOCK) {
      const piece = block.subarray(at, at + COPY_BLOCK);
      // Its buffer's last call (two back) is resolved: at most LAG + 1 calls are out after a step. The view
      // is taken in the step: a call before it may have grown the heap, which detaches older views.
      const turn = this.copyTurn;
      this.copyTurn ^= 1;
      await this.step(() => {
        const copy = copies.view(turn).subarray(0, piece.length);
        copy.set(piece);
        return this.main.pushInHeap(copy);
      }, keep);
    }
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

  /** The end: `keep` is given the last lines; then the helper's stats are in, and the helper has ended. */
  async end(keep: Keep): Promise<void> {
    await this.step(() => this.main.end(), keep);
    await this.guard(async () => {
      while (this.inFlight > 0) await this.resolveOne(keep);
      this.link.hold?.(true);
      this.link.post({ end: true }, []);
      const reply = await this.next();
      if (!('stats' in reply)) throw this.helperError(reply);
      this.helperStats = reply.stats;
    });
    this.freeCopies();
    await this.link.terminate();
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
          // What both tables hold after their last doublings (it was the main thread's alone: an outside
          // pass, 2026-12-02).
          reach: s.plan.reach + h.plan.reach,
        },
    };
  }

  /** A partitioned run has a filter a thread, none the run's. */
  exportFilter(): Uint8Array {
    throw new CuckooFilterError('INVALID_ARGUMENT', 'a partitioned run has no single filter to export');
  }

  /** Frees the main deduplicator and ends the helper (the stats stay). */
  async dispose(): Promise<void> {
    this.main.dispose();
    this.freeCopies();
    await this.link.terminate();
  }

  // The copy buffers are the run's: a run holds memory only while it runs (every finished two-thread
  // stream kept 2 MiB of the heap when they were taken for good).
  private freeCopies(): void {
    this.copies?.free();
    this.copies = undefined;
  }

  // One call of the main deduplicator: the hashes it gives the helper are sent, and the calls LAG back are
  // resolved.
  private step(here: () => Uint8Array, keep: Keep): Promise<void> {
    return this.guard(async () => {
      const before = this.main.pendingCalls;
      here();
      if (this.main.pendingCalls > before) {
        const outgoing = this.main.outgoing(1);
        const count = outgoing.length / 8;
        // Without the input's start, the helper planned for 2-byte lines: a filter of 8 million lines
        // (42 MB) for an input of known size, where the main thread's was 345 KB.
        const sample = this.sample;
        this.sample = undefined;
        const extra = sample ? { sample } : {};
        if (this.shared) {
          const slot = this.slots[this.sent % SLOTS];
          slot.hashes = sharedAtLeast(slot.hashes, outgoing.length);
          slot.verdicts = sharedAtLeast(slot.verdicts, count);
          new Uint8Array(slot.hashes).set(outgoing);
          this.link.post({ hashes: slot.hashes, count, verdicts: slot.verdicts, ...extra }, sample ? [sample] : []);
        } else {
          const hashes = outgoing.slice().buffer;
          this.link.post({ hashes, count, ...extra }, sample ? [hashes, sample] : [hashes]);
        }
        if (this.inFlight === 0) this.link.hold?.(true);
        this.sent++;
        this.inFlight++;
      }
      while (this.inFlight > LAG) await this.resolveOne(keep);
    });
  }

  // The oldest call's lines, once the helper's verdicts for its hashes are in.
  private async resolveOne(keep: Keep): Promise<void> {
    const reply = await this.next();
    if (!('decided' in reply)) throw this.helperError(reply);
    const verdicts = reply.verdicts ?? this.slots[(this.sent - this.inFlight) % SLOTS].verdicts!;
    this.inFlight--;
    if (this.inFlight === 0) this.link.hold?.(false);
    const out = this.main.resolve([new Uint8Array(verdicts, 0, reply.decided)]);
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

  private helperError(reply: HelperReply): Error {
    if ('failed' in reply) {
      const codes = ['INVALID_ARGUMENT', 'BAD_FORMAT', 'DISPOSED', 'OUT_OF_MEMORY', 'CAPACITY_EXCEEDED', 'NOT_READY'];
      return codes.includes(reply.failed)
        ? new CuckooFilterError(reply.failed as CuckooFilterErrorCode, reply.message)
        : this.failed(reply.message);
    }
    return this.failed("the run's helper thread answered out of step");
  }
}

/** A helper Worker's side of the link: what it is sent, and how it answers. */
export interface HelperPort {
  listen(take: (call: HelperCall) => void): void;
  post(reply: HelperReply, transfer: ArrayBuffer[]): void;
}

/**
 * Serves a partitioned run as its helper (the body of a helper Worker): a LineDeduper whose filter decides
 * the hashes of its share of the keys, which the main thread sends after each of its calls, answered with
 * a verdict byte each; at the end, its stats.
 */
export function serveHelper(port: HelperPort): void {
  let deduper: LineDeduper | undefined;
  const fail = (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    port.post({ failed: error instanceof CuckooFilterError ? error.code : 'error', message }, []);
  };
  const start = async (options: LineDeduperOptions) => {
    await ready();
    deduper = new LineDeduper(options);
    port.post({ ready: true }, []);
  };
  port.listen((call) => {
    try {
      if ('job' in call) {
        start(call.job).catch(fail);
        return;
      }
      const d = deduper!;
      if ('end' in call) {
        const stats = d.stats;
        d.dispose();
        port.post({ stats }, []);
        return;
      }
      const verdicts = d.decide(
        new Uint8Array(call.hashes, 0, 8 * call.count),
        call.sample ? new Uint8Array(call.sample) : undefined,
      );
      if (call.verdicts) {
        new Uint8Array(call.verdicts).set(verdicts);
        port.post({ decided: verdicts.length }, []);
      } else {
        const own = verdicts.slice().buffer;
        port.post({ decided: verdicts.length, verdicts: own }, [own]);
      }
    } catch (error) {
      fail(error);
    }
  });
}
