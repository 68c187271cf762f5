// The `cuckoo` command's count of a file's distinct keys, read before the run (cuckoo.ts, runEngine). Here,
// not in the package's entries: only the command uses it.
import { ErrorCode } from '../abi.js';
import { checkOptions, type LineDeduperOptions, makeEngine } from '../dedup.js';
import { CuckooFilterError, invalid } from '../errors.js';
import { CuckooFilter } from '../filter.js';
import { isHeapView, readDedupReport } from '../heap.js';
import { type CuckooModule, errorFromModule, requireModule } from '../wasm_module.js';

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

  /** A block already in the WebAssembly heap (LineDeduper.inputBlocks), as LineDeduper.pushInHeap takes it. */
  pushInHeap(block: Uint8Array): void {
    const engine = this.open();
    if (!isHeapView(this.m, block)) throw invalid("pushInHeap() takes a view of the module's heap");
    if (block.length > 0) this.check(this.m.dedupPush(engine, block.byteOffset, block.length));
  }

  /** The next input begins (a last line without its end ends here; with csv, its header comes next). */
  nextInput(): void {
    this.check(this.m.dedupNextInput(this.open()));
  }

  /** Records read so far. */
  get lines(): number {
    return this.engine === 0 ? this.counted : readDedupReport(this.m, this.m.dedupReport(this.engine)).lines;
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
    const error = errorFromModule(this.m);
    this.dispose();
    throw error;
  }
}
