// Loads a WebAssembly module of the package once (the main one, wasm_module.ts; RedisCuckooFilter's,
// redis_module.ts) and hands out the one instance its objects share.
//
// The wasm binary is inlined in a JavaScript module beside its Emscripten glue (deflated and in base64,
// by scripts/inline-wasm.mjs), so loading needs no fetch, no file system and no bundler configuration, in
// Node, browsers and workers alike. Each build has its glue and binary modules beside it (generated/: ES
// modules in the ES module build, CommonJS in the CommonJS build), loaded by static imports; inflating
// (DecompressionStream) and compiling the wasm are asynchronous, hence ready().
import { base64Decode } from './base64.js';
import { CuckooFilterError } from './errors.js';

/** What every module of the package has: its heap, malloc/free, and the error of its last failed call. */
export interface HeapModule {
  HEAPU8: Uint8Array;
  _malloc(size: number): number;
  _free(address: number): void;
  /** A cuckoo::ErrorCode; the text at lastErrorText() says what went wrong (heap.ts: lastErrorMessage). */
  lastErrorCode(): number;
  /** The address of the last error's NUL-terminated UTF-8 text, in static memory (reading it allocates nothing). */
  lastErrorText(): number;
}

export interface ModuleLoader<M> {
  /** Loads and instantiates the module. Idempotent: every call returns the same promise; a failed load may be retried. */
  ready(): Promise<void>;
  /** The loaded module, or undefined before ready() has resolved. */
  loaded(): M | undefined;
  /** The loaded module; before ready() has resolved, CuckooFilterError('NOT_READY') saying what to await. */
  require(): M;
}

/** `notReady`: the message of NOT_READY, which names the ready() to await. */
export function moduleLoader<M>(
  create: (options: { wasmBinary: Uint8Array }) => Promise<M>,
  deflatedWasm: string,
  notReady: string,
): ModuleLoader<M> {
  let instance: M | undefined;
  let loading: Promise<M> | undefined;
  return {
    ready() {
      if (!loading) {
        loading = Promise.resolve(unpacker(deflatedWasm))
          .then((wasmBinary) => create({ wasmBinary }))
          .then((module) => {
            instance = module;
            return module;
          });
        loading.catch(() => {
          loading = undefined;
        });
      }
      return loading.then(() => undefined);
    },
    loaded: () => instance,
    require() {
      if (!instance) throw new CuckooFilterError('NOT_READY', notReady);
      return instance;
    },
  };
}

/** Turns an inlined wasm binary (a zlib stream, in base64) back into the binary. */
export type Unpacker = (deflatedBase64: string) => Uint8Array | Promise<Uint8Array>;

let unpacker: Unpacker = (text) => inflateWithStreams(base64Decode(text)!);

/**
 * Replaces the unpacker for the loads that follow. The Node entry passes Buffer's base64 decoder and
 * node:zlib's inflater: the web streams' DecompressionStream works there too, but its first use in Node costs
 * far more than zlib, most of what ready() took and much of `cuckoo`'s run time on a small input, and
 * Buffer decodes base64 faster (docs/PERFORMANCE.md, "Measured reasons in the code").
 */
export function useUnpacker(unpack: Unpacker): void {
  unpacker = unpack;
}

// The platform's inflater (browsers, workers, Node 18+): about a millisecond for the ~90 KB binary in a
// browser; in Node, the first use of web streams costs more than the inflating (see useUnpacker).
async function inflateWithStreams(deflated: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([deflated as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new DecompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
