// The command's files: inputs read as streams (files, pipes, FIFOs, /dev/stdin, <(cmd), /proc files,
// character devices), outputs written to a temporary file and renamed into place when complete, and
// filter files read exactly as far as their header declares.
import {
  closeSync,
  constants,
  copyFileSync,
  createReadStream,
  fstatSync,
  fsyncSync,
  open as openCallback,
  openSync,
  read,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  write,
  writeSync,
  fchmodSync,
  fchownSync,
  linkSync,
  lstatSync,
  readlinkSync,
} from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { CuckooFilter, CuckooFilterError, LineDeduper } from '../node.js';

/** An error the command reports as one line (exit 1), without a stack trace. */
export class InputError extends Error {}
/** A mistake in the command line (exit 2). */
export class UsageError extends Error {}

const STDIN = '-';
// The most a read asks for. 1 MiB: with 4 MiB, 20M unique lines from a file peaked at 226-227 MiB on two
// threads against 198-200 MiB, 10M log lines at 131-133 against 108-110 (each block is held in the heap
// three times over, and its output and records beside it), for about 5-10% more time on the 20M lines (more
// calls, each a message to the helper and back): docs/PERFORMANCE.md, "Measured reasons in the code".
export const BLOCK = 1 << 20;

export function describeError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EISDIR':
      return 'is a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOSPC':
      return 'no space left on device';
    case 'ENOTDIR':
      return 'not a directory';
    case 'EROFS':
      return 'read-only file system';
    case 'EDQUOT':
      return 'disk quota exceeded';
    case 'EIO':
      return 'input/output error';
    // The system's words for the rest that a path can meet (a bare code said nothing to a reader).
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'ENAMETOOLONG':
      return 'file name too long';
    case 'ENXIO':
      return 'no such device or address (a socket, or a device not there)';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files';
    case 'EBADF':
      return 'bad file descriptor';
    case 'EINVAL':
      return 'invalid argument';
    default:
      return error.code ?? error.message;
  }
}

export function fileError(path: string, error: unknown): InputError {
  return new InputError(
    `${path === STDIN ? 'standard input' : path}: ${describeError(error as NodeJS.ErrnoException)}`,
  );
}

/**
 * Checks the inputs before anything is written (missing files, directories) and returns their total size
 * when every one is a regular file with a size (not a pipe, a device or a /proc file, whose st_size is 0
 * whatever they hold): the size is then a fair hint, otherwise there is none.
 */
export function checkInputs(files: readonly string[]): number | undefined {
  let total: number | undefined = 0;
  for (const file of files) {
    if (file === STDIN) {
      total = undefined;
      continue;
    }
    let stat: Stats;
    try {
      stat = statSync(file);
    } catch (error) {
      throw fileError(file, error);
    }
    if (stat.isDirectory()) throw new InputError(`${file}: is a directory`);
    // A /proc or /sys file reads as size 0 whatever it holds; any other empty file is empty.
    if (stat.isFile() && (stat.size > 0 || !/^\/(proc|sys)\//.test(realpathSync(file))) && total !== undefined)
      total += stat.size;
    else total = undefined;
  }
  return total;
}

/**
 * Whether every input can be read twice from its start: each is opened here by its path. Not standard input
 * or a descriptor this process already has (/dev/stdin, /dev/fd/N), even when it is a regular file: a
 * first reading would leave its offset at the end.
 */
export function readableTwice(files: readonly string[]): boolean {
  return files.every((file) => file !== STDIN && inheritedDescriptor(file) === undefined);
}

// /dev/stdin and /dev/fd/N name descriptors this process already has; they are read as they are (opening
// them again fails when the descriptor is a socket, as Node's child processes get).
function inheritedDescriptor(path: string): number | undefined {
  const match = /^\/(?:dev|proc\/self)\/(?:stdin|fd\/(\d+))$/.exec(path);
  if (!match) return undefined;
  return match[1] === undefined ? 0 : Number(match[1]);
}

// Opened off the main thread: opening a FIFO waits for its other end, and the main thread must stay free
// to handle a signal meanwhile (as cat does).
function openDescriptor(path: string, flags: string): Promise<number> {
  return new Promise((resolve, reject) =>
    openCallback(path, flags, (error, fd) => (error ? reject(error) : resolve(fd))),
  );
}

function readInto(fd: number, buffer: Uint8Array): Promise<number> {
  return new Promise((resolve, reject) =>
    read(fd, buffer, 0, buffer.length, null, (error, n) => (error ? reject(error) : resolve(n))),
  );
}

// Up to `length` bytes of a regular file at `position` (none when length <= 0).
function readAt(fd: number, buffer: Uint8Array, length: number, position: number): Promise<number> {
  if (length <= 0) return Promise.resolve(0);
  return new Promise((resolve, reject) =>
    read(fd, buffer, 0, length, position, (error, n) => (error ? reject(error) : resolve(n))),
  );
}

// The n bytes of a regular file at `offset` read again (the descriptor's position has moved past them).
// Fewer only if the file has shrunk meanwhile.
function readAgain(fd: number, into: Uint8Array, n: number, offset: number): number {
  let have = 0;
  for (let got = -1; have < n && got !== 0; have += got) got = readSync(fd, into, have, n - have, offset + have);
  return have;
}

// The next read of a descriptor, retried while a non-blocking descriptor has nothing yet.
async function readSome(fd: number, buffer: Uint8Array): Promise<number> {
  for (;;) {
    try {
      return await readInto(fd, buffer);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

// A second, non-blocking descriptor of an inherited pipe that this process may read (opening
// /proc/self/fd/N gives a pipe a new open file description, whose O_NONBLOCK is its own), or undefined
// where none can be had. Not of a descriptor opened for writing only: the twin would be a read end all the
// same, and take bytes meant for the pipe's own reader (a read of the descriptor fails instead).
function nonBlockingTwin(fd: number): number | undefined {
  try {
    const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1'));
    // Linux's O_ACCMODE (Node's constants lack it).
    if (!flags || (Number.parseInt(flags[1], 8) & 3) === constants.O_WRONLY) return undefined;
    return openSync(`/proc/self/fd/${fd}`, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
}

// The event loop gets a turn at least this often from reads of a pipe that has bytes at every read: a
// signal's handler (cuckoo.ts) runs only in a turn of the loop, and a writer that stays ahead would
// otherwise keep it from ever running.
const TURN_MS = 10;

/**
 * Reads of a pipe done at once when it has bytes or has ended (of `twin`, which never waits), else of `fd`,
 * waiting for bytes on Node's thread pool. With every read on the thread pool, 20M copies of a line
 * through `cat |` took 0.41-0.60 s, against 0.35-0.55 s so (docs/PERFORMANCE.md, "Runs of one line").
 */
function readsNowOrLater(twin: number, fd: number): (into: Uint8Array) => Promise<number> {
  let turned = performance.now();
  return (into) => {
    let n: number;
    try {
      n = readSync(twin, into, 0, into.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return Promise.reject(error);
      turned = performance.now();
      return readSome(fd, into);
    }
    if (performance.now() - turned < TURN_MS) return Promise.resolve(n);
    return new Promise((resolve) =>
      setImmediate(() => {
        turned = performance.now();
        resolve(n);
      }),
    );
  };
}

// A read of a pipe that brings this much found the pipe full (Linux's default capacity): its writer is ahead.
const PIPE_FULL = 1 << 16;
// An output's writes: up to this many bytes each, gathered for at most GATHER_MS (writerTo).
const GATHER = 256 << 10;
const GATHER_MS = 10;
// Whole blocks of a pipe (PipeReader): a call into a partitioned run each (a message to its helper and
// back). A 64 KiB read a call made 20M lines through `cat |` 1.5 times slower on two threads than on one.
// Blocks of 1 MiB took those lines 3.9-4.5 s, of 4 MiB 4.5-5.5 s (the pipe is not read while the run works
// on a block, and its writer waits meanwhile).
const PIPE_BLOCK = 1 << 20;
// A read after a full one that has not come back within this long ends the block: the writer has paused,
// and the block's lines are not held back for longer (a writer that is ahead refills a pipe in
// microseconds). The read goes on; its bytes start the next block.
const PIPE_PAUSE_MS = 2;

/**
 * Whole blocks of standard input that is a pipe, read into the command's own buffers: a block is filled
 * while the writer is ahead, up to PIPE_BLOCK bytes. It ends at a read that brings less than a full pipe
 * (the pipe emptied: the writer is behind), at a read not back within PIPE_PAUSE_MS (the writer paused;
 * that read's bytes, which land after the block's end, start the next block), at the input's end, or when
 * the block has no room for another full read. An error after a read that brought bytes is reported at
 * the next read, after those bytes' block.
 */
class PipeReader {
  private late: { read: Promise<number>; into: Uint8Array; at: number } | undefined;
  private failed: { error: unknown } | undefined;

  constructor(private readonly fd: number) {}

  async read(buffer: Uint8Array): Promise<number> {
    if (this.failed) throw this.failed.error;
    const into = buffer.subarray(0, PIPE_BLOCK);
    let n: number;
    if (this.late) {
      // (Fewer than PIPE_BLOCK bytes: the late read had less room.)
      const late = this.late;
      this.late = undefined;
      n = await late.read;
      into.set(late.into.subarray(late.at, late.at + n));
    } else {
      n = await readSome(this.fd, into);
    }
    let have = n;
    while (n >= PIPE_FULL && into.length - have >= PIPE_FULL) {
      const read = readSome(this.fd, into.subarray(have));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const pause = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), PIPE_PAUSE_MS);
      });
      try {
        const next = await Promise.race([read, pause]);
        if (next === undefined) {
          read.catch(() => {}); // awaited at the next block
          this.late = { read, into, at: have };
          return have;
        }
        n = next;
      } catch (error) {
        this.failed = { error };
        return have;
      } finally {
        clearTimeout(timer);
      }
      have += n;
    }
    return have;
  }
}

/**
 * TURNS buffers of BLOCK bytes that readBlocks reads into by turns. view(turn) is asked for at every read
 * and every block: it can be a view of the wasm heap, which a call into the module may replace (growing
 * the heap detaches the old views). memory() names what the views are of at the moment.
 */
export interface BlockBuffers {
  view(turn: number): Uint8Array;
  memory(): unknown;
}

// Three: while the caller works on a block, the next is read ahead into another, and the one before stays
// as it was for a caller a block behind (a partitioned run writes a block's lines after the next block
// has come: partitioned.ts).
const TURNS = 3;

/** TURNS blocks in the wasm heap (allocated there, for as long as the process runs). */
export function heapBuffers(): BlockBuffers & { holds(block: Uint8Array): boolean } {
  const blocks = LineDeduper.inputBlocks(BLOCK, TURNS);
  if (!blocks) throw new InputError('out of memory for the input buffers');
  return blocks;
}

function ownBuffers(): BlockBuffers {
  const buffers = Array.from({ length: TURNS }, () => Buffer.allocUnsafe(BLOCK));
  return { view: (turn) => buffers[turn], memory: () => buffers };
}

/**
 * The blocks of the inputs in order, each file opened when its turn comes (as cat does), read without
 * positions (so pipes, FIFOs and devices work); an input given as a FilePart of a regular file
 * (splitInputs) is read with them, from its start to its end. A block is valid until the next one is asked for. From a
 * regular file, two buffers take turns: the next block is read while the caller works on this one (else a
 * dedup waits on each read). Not from a FIFO or device, nor from a
 * pipe unless `readAheadPipes` (a read there can wait for input indefinitely, and a caller that stops
 * early would then wait for it too). With it, standard input that is a pipe is read without making the
 * caller wait on it: a read a block, made when the block is asked for, at once while the pipe has bytes
 * or has ended (a read of a non-blocking twin of its descriptor, into `heap`: no copy), else on Node's
 * thread pool until bytes come; where no twin can be had, read ahead on the thread pool, beside the
 * caller's work (a dedup of 20M lines (1 GB) through `cat |` took 1.12 times the file's time so, against
 * 1.78 reading 64 KiB at a time on the main thread before 2026-11-23). The price: a command that fails in
 * the middle of such an input while its writer is idle reports the error at once but exits only when
 * the writer writes again or closes (the read under way cannot be called off, and Node waits for it at
 * exit). With `wholePipeBlocks`, such a pipe is read in whole blocks (PipeReader; on one thread a read a
 * block kept its writer going best).
 * Into `heap`, if given (the blocks are then views of it), except a regular file this process did not
 * open (standard input redirected from a file): reading ahead, a block whose memory changed while it was
 * read (the wasm heap grew while the caller worked on the previous block) is read again at its offset,
 * which is known only from the start of a file opened here. (V8 grows wasm memory in place, so the bytes
 * are already there, but nothing promises it. Were the memory ever moved, the read would also have written
 * into memory V8 had let go of: on 64-bit platforms V8 reserves a wasm memory's maximum up front, 4 GiB
 * here, and does not move it.)
 */
export async function* readBlocks(
  inputs: readonly (string | FilePart)[],
  heap?: BlockBuffers,
  recordEnd?: number,
  readAheadPipes = false,
  nextFile?: (file: string) => Promise<void> | void,
  wholePipeBlocks = false,
): AsyncGenerator<Uint8Array> {
  let own: BlockBuffers | undefined;
  let turn = 0;
  let unended = false; // the last file's last byte was not recordEnd
  for (const [index, input] of inputs.entries()) {
    const part = typeof input === 'string' ? { file: input, start: 0 } : input;
    const file = part.file;
    // Each file's last line ends with it (as awk reads several files): one without its end byte gets it
    // here, before the next file's first line; then `nextFile` is told.
    if (unended && recordEnd !== undefined) yield Uint8Array.of(recordEnd);
    unended = false;
    if (index > 0) await nextFile?.(file);
    let handle: FileHandle | undefined;
    let pending: Promise<number> | undefined;
    let twin: number | undefined;
    try {
      const inherited = inheritedDescriptor(file);
      handle = file === STDIN || inherited !== undefined ? undefined : await open(file, 'r');
      const fd = handle ? handle.fd : (inherited ?? 0);
      const stat = fstatSync(fd);
      const inheritedPipe = readAheadPipes && !handle && stat.isFIFO();
      // Standard input that is a pipe, in whole blocks (two threads), or else a read a block, made when the
      // block is asked for: at once while the pipe has bytes (`twin`), so it need not be read ahead, and
      // into `heap` (no copy of each block into it).
      const pipe = wholePipeBlocks && inheritedPipe ? new PipeReader(fd) : undefined;
      twin = inheritedPipe && !pipe ? nonBlockingTwin(fd) : undefined;
      const readAhead = stat.isFile() || (inheritedPipe && twin === undefined);
      let buffers: BlockBuffers;
      if (heap && (handle || !readAhead)) {
        buffers = heap;
      } else {
        if (!own) own = ownBuffers();
        buffers = own;
      }
      let offset = part.start; // in the file, of the read in flight
      // A part of a regular file (splitInputs) is read with positions, up to its end.
      const readNext = pipe
        ? (into: Uint8Array) => pipe.read(into)
        : twin !== undefined
          ? readsNowOrLater(twin, fd)
          : part.start === 0 && part.end === undefined
            ? (into: Uint8Array) => readSome(fd, into)
            : (into: Uint8Array) => readAt(fd, into, Math.min(into.length, (part.end ?? Infinity) - offset), offset);
      let memory = buffers.memory();
      pending = readNext(buffers.view(turn));
      for (;;) {
        let n = await pending;
        pending = undefined;
        if (n === 0) break;
        // Only a read ahead runs while the caller works, and can see the memory change.
        if (readAhead && buffers.memory() !== memory) n = readAgain(fd, buffers.view(turn), n, offset);
        const block = buffers.view(turn).subarray(0, n);
        unended = block[n - 1] !== recordEnd;
        offset += n;
        turn = (turn + 1) % TURNS;
        if (readAhead) {
          memory = buffers.memory();
          pending = readNext(buffers.view(turn));
          pending.catch(() => {}); // awaited at the next block; the caller may stop before asking for it
        }
        yield block;
        if (!pending) {
          memory = buffers.memory();
          pending = readNext(buffers.view(turn));
        }
      }
    } catch (error) {
      throw fileError(file, error);
    } finally {
      // A read still running would go to a closed (or reused) descriptor: wait for it before closing one
      // opened here. One this process did not open stays open, and a read of an idle pipe may not return
      // for a long time: the caller goes on (to report an error) without it.
      if (handle) await pending?.catch(() => {});
      else pending?.catch(() => {});
      await handle?.close();
      if (twin !== undefined) closeSync(twin);
    }
  }
}

/** A stretch of an input that is a regular file: bytes [start, end), or to its end when `end` is undefined. */
export interface FilePart {
  file: string;
  start: number;
  end?: number;
}

/**
 * Regular files split into runs of parts for `readers` readers: as many runs, or more where a run would be
 * over `runBytes` (as many as that takes), at most; cut near equal shares of their bytes, each cut just after a
 * record's end byte (`recordEnd`) or at a file's start, so that every record is in one run whole. Fewer
 * runs when records reach past the cuts. Empty files are left out: they hold no record, and a file's end
 * ends its last record with or without them (not so for CSV headers: CSV input is not split). The inputs
 * are regular files that checkInputs accepted.
 */
export function splitInputs(
  files: readonly string[],
  recordEnd: number,
  readers: number,
  runBytes = Number.POSITIVE_INFINITY,
): FilePart[][] {
  if (readers <= 1) return [files.map((file) => ({ file, start: 0 }))];
  const sizeOf = (file: string) => {
    try {
      return statSync(file).size;
    } catch (error) {
      throw fileError(file, error);
    }
  };
  const inputs = files.map((file) => ({ file, size: sizeOf(file), at: 0 })).filter((f) => f.size > 0);
  let total = 0;
  for (const input of inputs) {
    input.at = total;
    total += input.size;
  }
  if (total === 0) return [files.map((file) => ({ file, start: 0 }))];
  const runs = Math.max(readers, Math.ceil(total / runBytes));
  // The first record boundary at or after `position` (global): after the first end byte at or after
  // position - 1 in its file, or that file's end.
  const boundary = (position: number): number => {
    const input = inputs.find((f) => position < f.at + f.size)!;
    if (position === input.at) return position;
    let fd: number | undefined;
    try {
      fd = openSync(input.file, 'r');
      const chunk = Buffer.allocUnsafe(1 << 16);
      for (let at = position - 1 - input.at, n = 1; n > 0; at += n) {
        n = readSync(fd, chunk, 0, Math.min(chunk.length, input.size - at), at);
        const found = chunk.subarray(0, n).indexOf(recordEnd);
        if (found >= 0) return input.at + at + found + 1;
      }
    } catch (error) {
      throw fileError(input.file, error);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    return input.at + input.size;
  };
  const cuts = [0];
  for (let i = 1; i < runs; i++) {
    // From the last cut at the least: a long record holding several shares' positions is read once. One
    // that ends the input ends the cutting (every later position would be read to the end again: with a
    // run a 16 MiB, a last record of 600 MiB took 1.7 s of reads, and 2.1 GB of -z records without a NUL
    // 19 s, before the count began; an outside pass).
    const cut = boundary(Math.max(Math.floor((total * i) / runs), cuts[cuts.length - 1]));
    if (cut >= total) break;
    if (cut > cuts[cuts.length - 1]) cuts.push(cut);
  }
  cuts.push(total);
  return cuts.slice(1).map((to, i) => {
    const from = cuts[i];
    return inputs
      .filter((f) => f.at < to && f.at + f.size > from)
      .map((f) => {
        const end = Math.min(to, f.at + f.size) - f.at;
        return end === f.size
          ? { file: f.file, start: Math.max(from - f.at, 0) }
          : { file: f.file, start: Math.max(from - f.at, 0), end };
      });
  });
}

/** Where a command writes: standard output, or a file that appears only when complete. */
export interface Output {
  write(bytes: Uint8Array): Promise<void>;
  /** Makes the output final: prepare(), then publish(). */
  commit(): Promise<void>;
  /** Everything commit() does but the rename: flushed, and a file's bytes on disk. Aborts on failure. */
  prepare(): Promise<void>;
  /** For a file, the rename into place (synchronous, after prepare()); otherwise nothing. */
  publish(): void;
  /**
   * Before publish(): keeps what the path holds now (a hard link), so that `restore` can put it back after
   * the rename (or remove a file that was not there); `discard` drops it. Nothing for standard output.
   */
  keepOld(): { restore(): void; discard(): void };
  /** Removes what was written (the temporary file); the old file, if any, stays as it was. */
  abort(): void;
}

/**
 * Commits several outputs as a pair: every one is prepared (flushed and on disk) before any is renamed,
 * so a write that fails (a full disk) leaves every old file as it was; then the renames follow one
 * another in one turn of the event loop, where no signal handler can run between them.
 */
export async function commitAll(outputs: Output[]): Promise<void> {
  try {
    for (const output of outputs) await output.prepare();
  } catch (error) {
    for (const output of outputs) output.abort();
    throw error;
  }
  // The renames: when a later one fails (FILE made read-only meanwhile), the earlier files are put back.
  const kept: { restore(): void; discard(): void }[] = [];
  try {
    for (const [i, output] of outputs.entries()) {
      if (i < outputs.length - 1) kept.push(output.keepOld());
      output.publish();
    }
  } catch (error) {
    // A restore that fails too (the disk failing) says where the old file is, after what went wrong first.
    let unrestored = '';
    for (const old of kept.reverse()) {
      try {
        old.restore();
      } catch (failure) {
        unrestored += `; ${(failure as Error).message}`;
      }
    }
    for (const output of outputs) output.abort();
    if (unrestored) throw new InputError(`${(error as Error).message}${unrestored}`);
    throw error;
  }
  for (const old of kept) old.discard();
}

const NOTHING_KEPT = { restore() {}, discard() {} };

// Outputs not yet committed, removed if the command is stopped by a signal or fails.
const pending = new Set<Output>();
// Whether a file output was renamed into place.
let published = false;

/**
 * True once the run's files are final: a file output was renamed into place and none is left to rename.
 * A signal that comes then comes too late to undo the run (its handler runs only after the renames, which
 * follow one another in one turn of the event loop, even when it came during the fsyncs before them).
 */
export function committed(): boolean {
  return published && pending.size === 0;
}

export function abortPending(): void {
  for (const output of pending) output.abort();
  pending.clear();
  releaseLocks();
}

// Lock files this process holds (lockFile), removed however it ends: the 'exit' event comes for a normal
// end, process.exit and an uncaught error; a signal's handler calls abortPending first.
const locks = new Set<string>();
function releaseLocks(): void {
  for (const lock of locks) {
    try {
      unlinkSync(lock);
    } catch {
      /* gone already */
    }
  }
  locks.clear();
}
process.on('exit', releaseLocks);

/**
 * `.NAME.SUFFIX`, the name of a file kept beside NAME; a NAME too long for that (a name may have 255 bytes)
 * is cut and followed by a digest of it, so that the name stays one NAME's own.
 */
function sidecarName(name: string, suffix: string): string {
  const most = 255 - suffix.length - 2;
  if (Buffer.byteLength(name) <= most) return `.${name}.${suffix}`;
  const digest = createHash('sha256').update(name).digest('hex').slice(0, 16);
  let cut = name.slice(0, most - 17);
  while (Buffer.byteLength(cut) > most - 17) cut = cut.slice(0, -1);
  return `.${cut}-${digest}.${suffix}`;
}

// A process's state and start time (Linux: /proc/PID/stat, fields 3 and 22): the start time tells a lock
// whose process died from one whose process id was given to another process since; undefined where it
// cannot be read.
function procStat(pid: number): { state: string; started: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], started: fields[19] };
  } catch {
    return undefined;
  }
}

// How long a lock file may stay empty before it counts as left by a process that died. This build never
// leaves one empty (lockFile links it into place whole), an earlier build did between creating and writing it.
const EMPTY_LOCK_MS = 5000;

// What a lock file holds: its maker's process id, its start time ('-' without /proc) and where it runs.
function lockText(): string {
  return `${process.pid} ${procStat(process.pid)?.started ?? '-'} ${whereThisRuns()}\n`;
}

// Where process ids mean what they mean here: this host and its PID namespace (Linux: the inode of
// /proc/self/ns/pid). A lock made elsewhere (another container on a shared volume, another host over NFS)
// names a process that this one cannot see: it is never taken over, only waited for.
let where: string | undefined;
function whereThisRuns(): string {
  if (where === undefined) {
    let namespace = '';
    try {
      namespace = readlinkSync('/proc/self/ns/pid').replace(/[^\w:[\]]/g, '');
    } catch {
      /* no /proc: the host alone */
    }
    where = `${hostname().replace(/\s/g, '_')}/${namespace}`;
  }
  return where;
}

/**
 * Makes `path` a file holding `text`, if nothing is there: written to `draft` (a new name) first and linked
 * into place, so that whoever finds it finds it whole. False when something is there already.
 */
function createWhole(path: string, draft: string, text: string): boolean {
  const fd = openSync(draft, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    writeSync(fd, text);
    closeSync(fd);
    linkSync(draft, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (!noHardLinks(code)) throw error;
  } finally {
    unlinkQuietly(draft);
  }
  // A file system without hard links (FAT): made where none is, then written (another run may find it
  // empty for a moment, and waits: lockHolder's 'again').
  let made: number;
  try {
    made = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  writeSync(made, text);
  closeSync(made);
  return true;
}

// A link(2) refused because the file system has no hard links (FAT: EPERM; others: ENOTSUP, ENOSYS).
function noHardLinks(code: string | undefined): boolean {
  return code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS';
}

// The live process holding a lock (`elsewhere`: the host and PID namespace it names, when they are not
// this one's, where it is not looked at and counts as live), or undefined when the lock is left by a
// process that is gone (a zombie, killed and not yet reaped by its parent, is gone: it holds nothing) or
// is unreadable as a lock. 'again' when the lock was removed as it was read, or is empty (a lock of an
// earlier build, which wrote it after making it) for less than EMPTY_LOCK_MS of this process's clock (a
// file's time may be another clock's). Anything but a regular file there is an error (a FIFO would block
// the read, a dangling link would look absent for ever).
const emptySince = new Map<string, number>();
function lockHolder(lock: string, path: string): { pid: number; elsewhere?: string } | 'again' | undefined {
  let text: string;
  try {
    const stat = lstatSync(lock);
    if (!stat.isFile()) {
      throw new InputError(`${path}: cannot lock: ${lock} is not a lock file (it is ${kindOfStat(stat)}); remove it`);
    }
    if (stat.size === 0) {
      const since = emptySince.get(lock) ?? Date.now();
      emptySince.set(lock, since);
      return Date.now() - since > EMPTY_LOCK_MS ? undefined : 'again';
    }
    emptySince.delete(lock);
    // O_NOFOLLOW and O_NONBLOCK: made a link or a FIFO since the lstat, it fails or returns at once.
    const fd = openSync(lock, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const bytes = Buffer.alloc(64);
      text = bytes
        .subarray(0, readSync(fd, bytes, 0, bytes.length, 0))
        .toString('utf8')
        .trim();
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'again';
    throw new InputError(`${path}: cannot lock: ${lock} is not a lock file (${code})`);
  }
  const [pidText, startedText, at] = text.split(' ');
  const pid = Number(pidText);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (at !== undefined && at !== whereThisRuns()) return { pid, elsewhere: at };
  const started = startedText === '-' ? undefined : startedText;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  const now = procStat(pid);
  if (now !== undefined && (now.state === 'Z' || now.state === 'X')) return undefined;
  // A live process with that id that started at another time is not the one that took the lock.
  return now !== undefined && started !== undefined && now.started !== started ? undefined : { pid };
}

function kindOfStat(stat: Stats): string {
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a pipe (FIFO)';
  if (stat.isSocket()) return 'a socket';
  return 'a device';
}

/**
 * The file a path names, through symbolic links and whether it exists yet or not, as an absolute path
 * (the path as given when its folder does not exist: the caller says so). Resolved as the system resolves
 * it: realpathSync.native (the system's realpath) where Node's own realpathSync and path.join read ".."
 * by the letters, so that `x/out` through a link `x -> deep/x` and `deep/x/out -> ../y/f` is deep/y/f, not
 * y/f (which was replaced instead: as sort -o, the file the system opens is the one written).
 */
function canonicalTarget(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    // Not there yet (or a link to nothing yet): the name the file will be made at, in its real folder.
    const target = danglingTarget(path);
    try {
      return join(realpathSync.native(dirname(target)), basename(target));
    } catch {
      return target;
    }
  }
}

/**
 * Holds a file for this run: a lock file beside it (`.NAME.cuckoo-lock`, linked into place whole, only
 * where none is, with this process's id, start time, host and PID namespace in it). While a live process
 * holds it, this one waits, saying so once through `say`; a lock whose process is gone (killed by SIGKILL,
 * or a zombie) is taken over, unless it was made on another host or in another PID namespace.
 * Released when the process exits. The lock is beside the file the path names through symbolic links,
 * whether it exists yet or not, so two names of it by links share one lock.
 *
 * The take-over is atomic: only the holder of a second lock, `.NAME.cuckoo-lock-takeover` (made the same
 * way), removes a stale lock, after reading it again. A lock is removed only by its live holder as it exits
 * or by a take-over of it once its holder is gone, so the stale lock read under the second lock is the one
 * removed: two runs that both found it stale cannot remove each other's new lock (they did when each
 * removed what it had judged stale). Why not flock(2): Node has no call for it. The second lock is held for
 * a read and an unlink; one left by a process killed in that moment is removed once its process is gone.
 */
export async function lockFile(path: string, say: (message: string) => void): Promise<void> {
  const target = canonicalTarget(path);
  const folder = dirname(target);
  const lock = besideIn(folder, sidecarName(basename(target), 'cuckoo-lock'));
  const takeover = besideIn(folder, sidecarName(basename(target), 'cuckoo-lock-takeover'));
  const text = lockText();
  const create = (file: string): boolean => {
    try {
      const draft = besideIn(
        folder,
        sidecarName(basename(target), `${randomBytes(4).toString('hex')}.cuckoo-lock-draft`),
      );
      return createWhole(file, draft, text);
    } catch (error) {
      throw (
        cannotCreate(path, folder, error) ??
        new InputError(`${path}: cannot lock (${describeError(error as NodeJS.ErrnoException)})`)
      );
    }
  };
  let waited = false;
  for (;;) {
    if (create(lock)) {
      locks.add(lock);
      return;
    }
    const holder = lockHolder(lock, path);
    if (holder === undefined) {
      if (create(takeover)) {
        try {
          if (lockHolder(lock, path) === undefined) unlinkQuietly(lock);
        } finally {
          unlinkQuietly(takeover);
        }
        continue;
      }
      // Another run is taking it over; its second lock is removed if its process is gone.
      const taker = lockHolder(takeover, path);
      if (taker === undefined) unlinkQuietly(takeover);
      else if (taker !== 'again' && !waited) {
        say(`waiting for process ${taker.pid}, which is taking over the lock ${lock} of ${path}`);
        waited = true;
      }
    } else if (holder !== 'again' && !waited) {
      say(
        holder.elsewhere
          ? `waiting for process ${holder.pid} of ${holder.elsewhere} (another host or PID namespace, where this run ` +
              `cannot see whether it is still running), which is using ${path}; if no run is, remove its lock ${lock}`
          : `waiting for process ${holder.pid}, which is using ${path} (its lock is ${lock})`,
      );
      waited = true;
    }
    await new Promise((resolve) => setTimeout(resolve, holder === 'again' ? 5 : 50));
  }
}

// A file in `folder`, named as the system will resolve it: not path.join, which reads "x/../" by the
// letters where x may be a link (a folder that canonicalTarget could not resolve is kept as given).
function besideIn(folder: string, name: string): string {
  return `${folder}/${name}`;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* gone already */
  }
}

/** Raised when standard output's reader has gone away (`| head`): the command ends quietly. */
export class BrokenPipe extends Error {}

// Each output has one write in flight at a time, made by Node's thread pool while the command works on
// the next block (the copy into the kernel runs on the other core, where a blocking write would stall the
// engine). The bytes are copied first, and gathered into writes of up to GATHER bytes: what a command
// writes can be a view of the wasm heap, gone at its next call (and through process.stdout each write
// would be kept until it drains), and a pipe's reads of 64 KiB made a write each, a trip through the
// thread pool each. Gathered bytes wait at most GATHER_MS, so a slow stream's lines (`tail -f`) are not
// held back for the next GATHER bytes, and a run that fails still writes the lines it decided before (its
// timer keeps the process until then, as awk's exit flushes its buffer). A write's error surfaces at a
// later write or at flush(). Every caller awaits each write before the next. A reader that went away
// (EPIPE: `| head`, a FIFO's reader) ends the command quietly.
function writerTo(
  fd: number,
  name: string,
): { write: Output['write']; flush(): Promise<void>; drop(): void; salvage(): void } {
  // Two buffers, each reused once the write from it is done (a new buffer per write made every byte a
  // fresh page to fault in): lines are gathered into one while the other's write is in flight, as a write
  // of 256 KiB into a pipe waits for its reader to take most of it (with one buffer the command waited too:
  // 10M log lines through `cat |` into `| cat` took 2.10-2.22 s against 2.00-2.07 s writing each read's
  // lines at once).
  const buffers = [Buffer.alloc(0), Buffer.alloc(0)];
  const written: Promise<void>[] = [Promise.resolve(), Promise.resolve()]; // each buffer's last write
  let current = 0; // the buffer lines are gathered into
  let gathered = 0; // bytes in it not yet written
  let last: Promise<void> = Promise.resolve(); // the last write started: each starts when the one before is done
  let writing = 0; // writes started and not done
  let timer: NodeJS.Timeout | undefined;
  let dropped = false;
  // The first write that failed: raised by every write after it (a failed write from the other buffer
  // would otherwise be seen only when that buffer comes round again: one more block read and lost).
  let failure: { error: unknown } | undefined;
  // An output whose gathered bytes a signal could not write (unwaitingWrite) gathers nothing: each write
  // goes out as it comes, as before lines were gathered.
  const unwaiting = unwaitingWrite(fd);
  const failed = (error: unknown): never => {
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') throw new BrokenPipe('EPIPE');
    throw fileError(name, error);
  };
  const send = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (gathered === 0 || dropped) return;
    const bytes = buffers[current].subarray(0, gathered);
    writing++;
    // A write that waited behind another is not made once the output is dropped (its descriptor closed).
    last = last
      .then(() => (dropped ? undefined : writeAll(fd, bytes).catch(failed)))
      .finally(() => {
        writing--;
      });
    // Seen by the next write or by flush(), not an unhandled rejection.
    last.catch((error) => {
      failure ??= { error };
    });
    written[current] = last;
    current ^= 1;
    gathered = 0;
  };
  return {
    async write(bytes) {
      if (failure) throw failure.error;
      if (gathered > 0 && gathered + bytes.length > GATHER) send();
      if (bytes.length >= GATHER) {
        // A large block's lines (from a file) go out as they are, from the first buffer, once no write is
        // in flight: a second buffer of a block's size would only add to the memory (2-6 MiB of RSS).
        await last; // (a failed write is raised here)
        if (buffers[0].length < bytes.length) buffers[0] = Buffer.allocUnsafe(bytes.length);
        current = 0;
      } else if (gathered === 0) {
        await written[current]; // the buffer is free again (and a failed write is raised here)
        if (buffers[current].length < GATHER) buffers[current] = Buffer.allocUnsafe(GATHER);
      }
      buffers[current].set(bytes, gathered);
      gathered += bytes.length;
      if (gathered >= GATHER || !unwaiting) send();
      else if (timer === undefined && gathered > 0) timer = setTimeout(send, GATHER_MS);
    },
    flush() {
      send();
      return last;
    },
    // Before the descriptor is closed by an abort: what is gathered is not written (nor, once the number
    // is reused, into another file).
    drop() {
      dropped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      gathered = 0;
    },
    // The process ends next (a signal): what is gathered is written now, as far as it can be without
    // waiting, unless a write is still in flight (these bytes would overtake it; a signal in a flood of
    // lines ends a cat mid-write too). A slow stream's lines, written within GATHER_MS, come so.
    salvage() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      if (gathered > 0 && !dropped && writing === 0) unwaiting?.(buffers[current].subarray(0, gathered));
      dropped = true;
      gathered = 0;
    },
  };
}

// How the bytes gathered for `fd` are written when a signal ends the process: as far as the descriptor
// takes them now, never waiting (a pipe, a FIFO or a terminal whose reader is behind would keep a write
// waiting, and the handler must end the process). Those get a descriptor of their own that never waits:
// opening /proc/self/fd/N gives them a new open file description, whose O_NONBLOCK is its own (and whose
// offset they do not have); a regular file or a block device is written where it is (a new description
// would write at offset 0). Undefined where no such write can be made: a socket (Node's spawn gives one;
// it cannot be opened so), and a pipe or a terminal that this process may not open (another user's, under
// sudo -u or setpriv: EACCES, tried now). What is not taken is lost, as from a cat that a signal ends in a
// write.
function unwaitingWrite(fd: number): ((bytes: Uint8Array) => void) | undefined {
  const writeFully = (target: number, bytes: Uint8Array) => {
    for (let at = 0; at < bytes.length; ) at += writeSync(target, bytes, at);
  };
  let stat: Stats;
  try {
    stat = fstatSync(fd);
  } catch {
    return undefined;
  }
  if (stat.isFile() || stat.isBlockDevice())
    return (bytes) => {
      try {
        writeFully(fd, bytes);
      } catch {
        /* ENOSPC, EIO: the rest is lost */
      }
    };
  if (!stat.isFIFO() && !stat.isCharacterDevice()) return undefined;
  const twin = () => openSync(`/proc/self/fd/${fd}`, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    closeSync(twin());
  } catch {
    return undefined;
  }
  return (bytes) => {
    let target: number | undefined;
    try {
      target = twin();
      writeFully(target, bytes);
    } catch {
      /* EAGAIN (the reader is behind), EPIPE, ENXIO (the reader is gone): the rest is lost */
    } finally {
      if (target !== undefined) closeSync(target);
    }
  };
}

// The outputs written in place (standard output, devices, FIFOs): a signal's handler writes what they
// have gathered (salvageOutputs) before the process ends by the signal. Outputs to a temporary file are
// not here: a signal removes them (abortPending).
const salvageable = new Set<() => void>();

export function salvageOutputs(): void {
  for (const salvage of salvageable) salvage();
  salvageable.clear();
}

/**
 * Writes `text` to standard output and waits for it, as a command's output is written: a reader that went
 * away raises BrokenPipe, another failure (a full disk) an InputError naming standard output. (The help and
 * the version went through process.stdout, whose failed write ended the process on an unhandled 'error'.)
 */
export async function printToStdout(text: string): Promise<void> {
  const writer = writerTo(1, 'standard output');
  await writer.write(Buffer.from(text));
  await writer.flush();
}

function stdoutOutput(): Output {
  const writer = writerTo(1, 'standard output');
  salvageable.add(writer.salvage);
  return {
    write: writer.write,
    commit: writer.flush,
    prepare: writer.flush,
    publish() {},
    keepOld: () => NOTHING_KEPT,
    abort() {},
  };
}

// Why a file in `folder` could not be created, where the folder is the reason: it is not there, or not a
// folder, or takes no new files (a folder of /proc or /sys: creating there fails as if it were not there).
function cannotCreate(path: string, folder: string, error: unknown): InputError | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOTDIR') return new InputError(`${path}: cannot create: ${folder} is not a folder`);
  if (code !== 'ENOENT') return undefined;
  if (statSync(folder, { throwIfNoEntry: false })?.isDirectory())
    return new InputError(`${path}: cannot create: the folder ${folder} takes no new files`);
  return new InputError(`${path}: cannot create: the folder ${folder} does not exist`);
}

/**
 * An output. '-' or undefined: standard output. A path to a device, a FIFO or a socket is written in place
 * (there is nothing to rename). Any other path is written to a temporary file in the same folder,
 * flushed, and renamed over the path only by commit(): an output that names an input is read in full
 * first (as with `sort -o`), and a command that fails or is killed leaves the old file as it was.
 */
export async function openOutput(path: string | undefined): Promise<Output> {
  if (path === undefined || path === STDIN) return stdoutOutput();
  let target = path;
  let mode = 0o666 & ~process.umask();
  let owner: { uid: number; gid: number } | undefined; // an existing file's, which the new one keeps
  try {
    const stat = statSync(path);
    if (stat.isDirectory()) throw new InputError(`${path}: is a directory`);
    if (!stat.isFile()) return await inPlaceOutput(path);
    target = canonicalTarget(path); // through a symbolic link, to the file it names (as sort -o writes)
    mode = stat.mode & 0o7777;
    owner = { uid: stat.uid, gid: stat.gid };
  } catch (error) {
    if (error instanceof InputError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw fileError(path, error);
    target = canonicalTarget(path); // a link to a file not there yet is kept: the file is made (as sort -o)
  }
  const folder = dirname(target);
  const temporary = besideIn(folder, sidecarName(basename(target), `${randomBytes(4).toString('hex')}.cuckoo-tmp`));
  let fd: number;
  try {
    fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // An existing file that could be written in place, in a folder that takes no new file: the new file
    // is what could not be made (said "cannot create" of the file, which sort -o writes in place).
    const existing = owner !== undefined && (code === 'EACCES' || code === 'EPERM' || code === 'EROFS');
    throw (
      cannotCreate(path, folder, error) ??
      new InputError(
        existing
          ? `${path}: cannot write the new file beside it in ${folder} (${describeError(error as NodeJS.ErrnoException)}): ` +
              'the output is written to a new file there and renamed over the old one once complete'
          : `${path}: cannot create (${describeError(error as NodeJS.ErrnoException)})`,
      )
    );
  }
  let open = true;
  const writer = writerTo(fd, path);
  const output: Output = {
    write: writer.write,
    async commit() {
      await output.prepare();
      output.publish();
    },
    async prepare() {
      try {
        await writer.flush(); // its error names the file already
      } catch (error) {
        output.abort();
        throw error;
      }
      try {
        // The replaced file's owner and group (a run as root on a user's file left it root's); one this
        // user may not give the file to stays the user's, as with any file the user makes.
        if (owner) {
          try {
            fchownSync(fd, owner.uid, owner.gid);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
          }
        }
        fchmodSync(fd, mode); // after the owner: a change of owner clears the set-user-ID bits
        fsyncSync(fd);
        closeSync(fd);
        open = false;
      } catch (error) {
        output.abort();
        throw fileError(path, error);
      }
    },
    keepOld() {
      const old = besideIn(folder, sidecarName(basename(target), `${randomBytes(4).toString('hex')}.cuckoo-old`));
      try {
        linkSync(target, old);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // Nothing there: putting it back is removing what the rename made.
        if (code === 'ENOENT') return { restore: () => unlinkQuietly(target), discard() {} };
        if (!noHardLinks(code)) throw fileError(path, error);
        try {
          copyFileSync(target, old, constants.COPYFILE_EXCL); // no hard links (FAT): a copy instead
        } catch (copying) {
          throw fileError(path, copying);
        }
      }
      // A rename of one link of a file over another link of it does nothing: when this output's own rename
      // failed, `old` is still beside the path, and is removed.
      const restore = () => {
        try {
          renameSync(old, target);
        } catch (error) {
          throw new InputError(
            `${path} holds this run's output, and its old content could not be put back ` +
              `(${describeError(error as NodeJS.ErrnoException)}): it is in ${old}`,
          );
        }
        unlinkQuietly(old);
      };
      return { restore, discard: () => unlinkQuietly(old) };
    },
    publish() {
      try {
        renameSync(temporary, target);
      } catch (error) {
        output.abort();
        throw fileError(path, error);
      }
      pending.delete(output);
      published = true;
    },
    abort() {
      writer.drop();
      if (open) {
        try {
          closeSync(fd);
        } catch {
          /* already closed */
        }
        open = false;
      }
      try {
        unlinkSync(temporary);
      } catch {
        /* gone already */
      }
      pending.delete(output);
    },
  };
  pending.add(output);
  return output;
}

// The file a path names through symbolic links whose last one points to nothing yet (the path itself when
// it is no link). Links are followed as the system follows them, up to its limit of 40: a relative link's
// text is put after its own folder as it is, "../" and all, for the system to resolve (path.join would
// read "x/../" by the letters, where x may be a link).
function danglingTarget(path: string): string {
  let target = path;
  for (let hops = 0; hops < 40; hops++) {
    let link: string;
    try {
      if (!lstatSync(target).isSymbolicLink()) return target;
      link = readlinkSync(target);
    } catch {
      return target; // nothing there: the path to make
    }
    target = isAbsolute(link) ? link : `${dirname(target)}/${link}`;
  }
  return target;
}

async function inPlaceOutput(path: string): Promise<Output> {
  let fd: number;
  try {
    fd = await openDescriptor(path, 'w');
  } catch (error) {
    throw fileError(path, error);
  }
  const writer = writerTo(fd, path);
  salvageable.add(writer.salvage);
  // Closed once: by prepare() or by abort(), whichever comes first. A second close could close another
  // file that has the number by then.
  let open = true;
  const close = () => {
    salvageable.delete(writer.salvage);
    if (!open) return;
    open = false;
    closeSync(fd);
  };
  const prepare = async () => {
    await writer.flush();
    try {
      close();
    } catch (error) {
      throw fileError(path, error);
    }
  };
  return {
    write: writer.write,
    commit: prepare,
    prepare,
    publish() {},
    keepOld: () => NOTHING_KEPT,
    abort() {
      writer.drop();
      try {
        close();
      } catch {
        /* a failed close changes nothing here: the output is given up */
      }
    },
  };
}

function writeSome(fd: number, bytes: Uint8Array, at: number): Promise<number> {
  return new Promise((resolve, reject) =>
    write(fd, bytes, at, bytes.length - at, null, (error, n) => (error ? reject(error) : resolve(n))),
  );
}

async function writeAll(fd: number, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length; ) {
    try {
      at += await writeSome(fd, bytes, at);
    } catch (error) {
      // A descriptor another process made non-blocking, whose reader is behind: wait a moment.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
}

/** The most bytes a filter file may declare: what the WebAssembly heap can hold. */
const MAX_FILTER_BYTES = 2 ** 32;

/**
 * Reads a filter file (or standard input for '-') as far as its header declares, and refuses one with
 * more bytes after that: reading stops there, so `info /dev/zero` or a filter followed by other data
 * ends at once instead of reading on.
 */
export async function readFilterFile(path: string): Promise<Uint8Array> {
  // Opened once: a second open of a FIFO would wait for a second writer.
  let fd: number | undefined;
  // A folder as standard input reads as no bytes (it said "truncated: 0 bytes"), as the other commands
  // and cat do not take it.
  if (path === STDIN && fstatSync(0).isDirectory()) throw new InputError('standard input: is a directory');
  if (path !== STDIN) {
    try {
      fd = await openDescriptor(path, 'r');
      if (fstatSync(fd).isDirectory()) {
        closeSync(fd);
        throw new InputError(`${path}: is a directory`);
      }
    } catch (error) {
      if (error instanceof InputError) throw error;
      throw fileError(path, error);
    }
  }
  const stream = fd === undefined ? process.stdin : createReadStream('', { fd, highWaterMark: 1 << 16 });
  // The chunks until the header tells the length; then one buffer of that length, which the rest is read
  // into (an outside pass: the chunks, their concatenation and the import's copy held a file three times
  // over: 372 MB for a filter of 105 MB, now 301). Without memory for it, the chunks as before: the
  // import then names what is wrong with the header, if anything is.
  let parts: Buffer[] = [];
  let whole: Buffer | undefined;
  let triedWhole = false;
  let have = 0;
  let declared = 0; // 0 until the header tells
  let need = 6;
  let notAnExport = false;
  try {
    for await (const chunk of stream) {
      const block = chunk as Buffer;
      if (whole) block.copy(whole, have, 0, Math.min(block.length, whole.length - have));
      else parts.push(block);
      have += block.length;
      while (declared === 0 && !notAnExport && have >= need) {
        const answer = CuckooFilter.declaredLength(Buffer.concat(parts, need));
        if (answer > 0) declared = answer;
        else if (answer === 0) notAnExport = true;
        else need = -answer;
      }
      if (notAnExport) break; // import() names what is wrong
      if (declared > MAX_FILTER_BYTES) {
        throw new InputError(
          `${nameOf(path)}: not a valid filter file: its header declares ${declared} bytes, more than a filter can have`,
        );
      }
      if (declared !== 0 && !triedWhole) {
        triedWhole = true;
        try {
          whole = Buffer.allocUnsafe(declared);
        } catch {
          whole = undefined;
        }
        if (whole) {
          // Chunk by chunk: a chain's header (version 4) comes last, after most of the file.
          for (let at = 0, i = 0; at < declared && i < parts.length; at += parts[i++].length)
            parts[i].copy(whole, at, 0, Math.min(parts[i].length, declared - at));
          parts = [];
        }
      }
      if (declared !== 0 && have > declared) break;
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw fileError(path, error);
  } finally {
    if (stream !== process.stdin) stream.destroy();
    else process.stdin.pause();
  }
  if (declared !== 0 && have > declared) {
    // The header's own fault first (a table length that does not match its buckets was reported as data
    // after the bytes it declares).
    let fault = `more data follows the ${declared} bytes its header declares`;
    try {
      CuckooFilter.import(whole ?? Buffer.concat(parts, have).subarray(0, declared)).dispose();
    } catch (error) {
      if (error instanceof CuckooFilterError && error.code === 'BAD_FORMAT')
        fault = error.message.replace(/^not a valid cuckoo filter export: /, '');
    }
    throw new InputError(`${nameOf(path)}: not a valid filter file: ${fault}`);
  }
  return whole ? whole.subarray(0, have) : Buffer.concat(parts, have);
}

// How messages name a file: standard input as such (`info -` said "-: ...").
function nameOf(path: string): string {
  return path === STDIN ? 'standard input' : path;
}
