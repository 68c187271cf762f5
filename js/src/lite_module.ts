// The lite entry's WebAssembly module (cpp/wasm/lite_bindings.cpp): a filter sized at creation, built as a
// standalone wasm binary without embind or Emscripten's glue, which would weigh more than the filter. Its
// exports are the calls of FilterModule under their names (cpp/wasm/filter_bindings.hpp), and it imports two
// functions, given here. Loaded once, shared by every lite filter.
import deflatedWasm from './generated/cuckoo_lite_wasm_binary.js';
import type { FilterModule } from './filter_base.js';
import { moduleLoader } from './wasm_loader.js';

type Call = (...args: number[]) => number;

/** The module's exports: FilterModule's calls, malloc and free, its memory, and the reactor's start. */
type LiteExports = Record<string, Call> & { memory: WebAssembly.Memory; _initialize(): void };

async function instantiate({ wasmBinary }: { wasmBinary: Uint8Array }): Promise<FilterModule> {
  let memory: WebAssembly.Memory | undefined;
  let heap = new Uint8Array(0);
  const imports = {
    // The heap grew (sbrk): the old view of it is detached.
    env: {
      emscripten_notify_memory_growth: () => {
        heap = new Uint8Array(memory!.buffer);
      },
    },
    // What an abort in the C++ runtime calls; the core reports its errors as codes and never aborts.
    wasi_snapshot_preview1: {
      proc_exit: (code: number) => {
        throw new WebAssembly.RuntimeError(`cuckoo-wasm/lite: the WebAssembly module aborted (${code})`);
      },
    },
  };
  const { instance } = await WebAssembly.instantiate(wasmBinary as Uint8Array<ArrayBuffer>, imports);
  const exports = instance.exports as unknown as LiteExports;
  memory = exports.memory;
  heap = new Uint8Array(memory.buffer);
  exports._initialize();
  // The calls are the exports themselves; malloc, free and the heap get the names the package uses.
  return Object.create(exports, {
    _malloc: { value: exports.malloc },
    _free: { value: exports.free },
    HEAPU8: { get: () => heap },
  }) as FilterModule;
}

const loader = moduleLoader(
  instantiate,
  deflatedWasm,
  "the lite WebAssembly module is not loaded yet: `await ready()` from 'cuckoo-wasm/lite' first " +
    '(or use `await CuckooFilter.create(options)`)',
);

/** Loads the lite module. Idempotent: every call returns the same promise. */
export const ready = (): Promise<void> => loader.ready();

/** The loaded module; NOT_READY before ready() has resolved. */
export const requireModule = (): FilterModule => loader.require();
