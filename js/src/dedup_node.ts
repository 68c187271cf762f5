// The Node stream adapter of the line deduplicator: `createReadStream(a).pipe(dedupLines()).pipe(out)`.
// Only the package's Node entry (node.ts) exports it, so that browser bundles never see node:stream.
import { Transform, type TransformCallback } from 'node:stream';
import { checkOptions, LineDeduper, type LineDeduperOptions, type LineDedupStats, statsOf } from './dedup.js';

/** A Node Transform from bytes to the bytes of the new lines, with the deduplicator's stats. */
export class LineDedupTransform extends Transform {
  private deduper: LineDeduper | undefined;
  private readonly options: LineDeduperOptions | undefined;

  constructor(options?: LineDeduperOptions) {
    super();
    this.options = checkOptions(options); // bad options throw here, not at the first write
  }

  /** Counts so far; final once the stream has ended ('end' on the readable side). */
  get stats(): LineDedupStats {
    return statsOf(this.deduper);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.withDeduper(callback, (d) => d.push(chunk));
  }

  override _flush(callback: TransformCallback): void {
    this.withDeduper(callback, (d) => {
      const last = d.end();
      d.dispose(); // the stats stay
      return last;
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.deduper?.dispose();
    callback(error);
  }

  private withDeduper(callback: TransformCallback, use: (d: LineDeduper) => Uint8Array): void {
    const run = (d: LineDeduper) => {
      let out: Uint8Array;
      try {
        out = use(d);
      } catch (error) {
        callback(error as Error);
        return;
      }
      callback(null, out.length > 0 ? Buffer.from(out.buffer, out.byteOffset, out.length) : undefined);
    };
    if (this.deduper) {
      run(this.deduper);
      return;
    }
    LineDeduper.create(this.options).then(
      (d) => {
        // Destroyed while the module loaded (the source failed after its first block): free it at once.
        if (this.destroyed) {
          d.dispose();
          return;
        }
        this.deduper = d;
        run(d);
      },
      (error: Error) => callback(error),
    );
  }
}

/** A Node Transform that deduplicates lines (see LineDeduper): `readable.pipe(dedupLines()).pipe(out)`. */
export function dedupLines(options?: LineDeduperOptions): LineDedupTransform {
  return new LineDedupTransform(options);
}
