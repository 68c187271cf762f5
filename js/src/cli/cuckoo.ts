#!/usr/bin/env node
// cuckoo: deduplicate lines and query keys with a cuckoo filter (the cuckoo-wasm package's command).
// A thin shell over the package: dedup and build run the LineDeduper engine (dedup.ts), whose line rules
// are the ones docs/DEDUP.md states.
import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  CuckooFilter,
  CuckooFilterError,
  LineDeduper,
  ready as packageReady,
  DEDUP_LOSS_BUDGET,
  MAX_DEDUP_CAPACITY,
  MAX_WINDOW,
  MIN_GROWING_FP_RATE,
  MIN_WINDOW_FP_RATE,
  planDedup,
  type LineDeduperOptions,
  type LineDedupStats,
} from '../node.js';
import { countDistinctKeys, mostlyRepeats, uncountedPlan } from './distinct.js';
import {
  abortPending,
  salvageOutputs,
  BrokenPipe,
  checkInputs,
  describeError,
  commitAll,
  committed,
  heapBuffers,
  InputError,
  lockFile,
  openOutput,
  printToStdout,
  readableTwice,
  readBlocks,
  readFilterFile,
  UsageError,
} from './io.js';
import { nodeHelperLink } from '../node_helper.js';
import { type HelperLink, PARTITION_FROM_BYTES, PartitionedRun, SETTLE_MS } from '../partitioned.js';
import { makeProgress } from './progress.js';

const NAME = 'cuckoo';
const BUILD_FP_RATE = 0.001;
// Exit statuses: 0 done, 1 an error, 2 a usage error (query: 0 every key present, 1 one absent, 2 an
// error, as grep), 128 + N when stopped by signal N (141: standard output's reader went away).
const EXIT_ERROR = 1;
const EXIT_USAGE = 2;
const EXIT_BROKEN_PIPE = 141;

const HELP = {
  main: `usage: ${NAME} <command> [options] [FILE...]

Commands:
  dedup [FILE...]            write each line the first time it is seen, in input order
  build [FILE...] -o FILTER  build a filter from keys, one per line
  query FILTER [KEY...]      tell whether keys are (probably) in a filter
  info FILTER                describe a filter

Run '${NAME} <command> --help' for a command's options; '${NAME} --version' for the version.
FILE '-' (or no FILE) is standard input. Exit status: 0 done, 1 error, 2 usage error.`,
  dedup: `usage: ${NAME} dedup [options] [FILE...]

Writes each line of the files (or standard input) the first time it is seen, in input order. A line's
key is its bytes without "\\n" or "\\r\\n" (a CRLF line equals its LF twin); each line keeps its own
ending, and a last line without one gets "\\n". A cuckoo filter remembers the lines seen: about 6
bytes per unique line from a file of 8 MiB or more (counted first, below), 5.6 to 11.1 from a pipe or
a smaller file. A line never seen before is dropped only
by a false positive: by default the expected number of such lines in a run is at most 0.01 up to about 130
million unique lines (10 million: 0.0005; 100 million: 0.007), and --stats says what it was.

Options:
  -o, --output FILE  write to FILE, replaced only when complete, by a rename (it may be one of the
                     inputs; a hard link to FILE keeps the old lines, where sort -o writes in place)
  --fp-rate R        false-positive rate, ${MIN_GROWING_FP_RATE} <= R < 1, instead of the default above
  --capacity N       unique lines to start with room for (default: a file's count, below; else
                     65,536, for an empty file too (it may be growing), fewer for small files, more
                     for files of over 130 million lines; at most ${MAX_DEDUP_CAPACITY}); the filter
                     doubles past it. Skips the count
  --threads N        use up to N threads (at most 256), one a core at most (default: as many as
                     the cores): to count a file's distinct keys (below), one per 128 MiB; and to
                     deduplicate (not with --seen), two, which share the keys between two filters
                     (the same output, but for the lines wrongly dropped: other ones, as many
                     expected), for files of 128 MiB or more but those whose lines mostly
                     repeat the line before them (below), or any input (pipes too) when
                     --threads is given
  --stats            print counts and the expected number of wrongly dropped lines on standard error
  -z, --zero-terminated
                     records end with a NUL byte instead of a newline ("\\r" and "\\n" are data), as
                     sort -z and find -print0
  -D, --duplicates   write the lines dropped as seen before instead of the new ones (awk 'seen[$0]++':
                     each copy after the first, where uniq -D writes every copy)
  -f, --fields LIST  the key is these fields of the line (cut's syntax: 2, 2,4, 2-3, 3-), joined by
                     the delimiter; the line is written whole
  -t, --delimiter C  the character between fields (default: a tab; with --csv, a comma)
  --csv              records are CSV (RFC 4180: quoted fields may hold commas, "" and newlines); the
                     header is written and never deduplicated; -f takes column names too (-f email;
                     a name that is a number or holds a comma in double quotes: -f '"2021"'); a key
                     is the fields' values, so "a" equals a; a UTF-8 byte-order mark before the
                     header is not part of its first name
  --seen FILE        remember lines across runs: lines in FILE's filter count as seen, and FILE is
                     rewritten with this run's lines added once the run completes (created if absent,
                     or empty, with --fp-rate and --capacity; an existing FILE keeps its own). FILE
                     is a regular file; a run holds it from start to end (another run on it waits)
  --window N         remember only the keys of the last N lines written (at most ${MAX_WINDOW}): a
                     line is written when its key is not among theirs, and the oldest is deleted
                     from the filter as each new one comes, so memory is bounded (about 13 bytes a
                     line of N) however long the input: for endless streams (tail -f).
                     Its default rate is the least, ${MIN_WINDOW_FP_RATE} (the loss budget above is for
                     inputs that end): about 2 new lines in a billion are wrongly dropped (several
                     times that where keys come back just after the window forgets them). On one
                     thread; not with --seen or --capacity
  --progress         show progress on standard error even when it is not a terminal
  --no-progress      never show progress
  -h, --help         this help

Files of 8 MiB to 16 GiB, and at most half the free memory (the second reading then comes from the
page cache), are read twice: first to count their distinct keys (about 0.8 s a GB here on one
thread, 0.5 s on two), so that the filter starts with room for them and does not double; but not
those whose lines, in 8 samples, mostly repeat the line before them (such a line costs the filter
nothing, and the count would cost as much as the run), unless --fp-rate is too low for a start from
their size to reach their lines; such files (of 8 MiB or more, counted or not) run on one thread
unless --threads is given. build counts them too. Otherwise
it starts small and doubles in place as unique lines come, so its memory follows them and no input
size needs to be known. It holds at least a billion unique lines (more than memory holds) at rates
down to about 1.6e-10; below that, for files, the start is raised so that their size fits, and from a
pipe it starts larger and doubles fewer times (at 1e-10: room for 2,000,000 lines, doubled 7 times:
256 million lines, unless --capacity starts it larger).

Lines end at "\\n" only: a file of "\\r" line ends is one line (tr '\\r' '\\n' first). Node reopens a
closed standard input or output on /dev/null before the command starts: with <&- the input is empty,
with >&- the lines are lost, and the status is 0 (sort exits 2). A reader that stops early (| head) ends the run with the status SIGPIPE
gives (141), and like any run that does not complete it leaves FILE as it was: the next run prints
those lines again. A run killed by SIGKILL leaves its temporary files (.NAME.*.cuckoo-tmp, and
at worst a .NAME.*.cuckoo-lock-draft) beside the outputs, which stay as they were, and a lock
(.NAME.cuckoo-lock) that the next run takes over; a run that fails where a file cannot be removed (its
folder made read-only meanwhile) may leave them too.`,
  build: `usage: ${NAME} build [options] [FILE...] -o FILTER

Builds a filter from keys, one per line (the same line rules as dedup; a repeated key is stored once),
and writes it to FILTER, replaced only when complete. '-o -' writes it to standard output. A key the
filter already answers "present" for is not stored again, whether it repeats or is a false positive (at
about the filter's rate), so info's items may be a little fewer than the distinct keys, and deleting
keys from such a filter (the library's delete) may remove another key's entry: for lookups, as
RedisBloom's CF.ADDNX makes them; build a filter to delete from with the library's add(). A dedup run
that holds FILTER as its --seen state is waited for before the filter is written.

Options:
  -o, --output FILTER  the filter file to write (required)
  --fp-rate R          false-positive rate, ${MIN_GROWING_FP_RATE} <= R < 1 (default ${BUILD_FP_RATE})
  --capacity N         keys to start with room for (default: a file's count, as for dedup, which build
                       takes of files of runs too; else 65,536,
                       an empty file too, fewer for small files); the filter doubles past it
  --threads, --progress, --no-progress, -h/--help as for dedup`,
  query: `usage: ${NAME} query [options] FILTER [KEY...]

Prints "present" or "absent", a tab and the key for each KEY, or for each line of standard input as it
arrives. "present" means probably present (false positives at the filter's rate); "absent" is certain.
Exit status as grep's: 0 every key present, 1 at least one absent, 2 an error. A KEY argument must be
valid UTF-8: pass other bytes on standard input.

Options:
  -h, --help       this help`,
  info: `usage: ${NAME} info FILTER

Prints the filter's options, items, load, bits per item and expected false-positive rate.

Options:
  -h, --help       this help`,
};

type Values = Record<string, string | boolean | undefined>;

const PROGRESS_OPTIONS = {
  progress: { type: 'boolean' },
  'no-progress': { type: 'boolean' },
} as const;
const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

// An option's value is the argument after it, whatever it starts with, as getopt takes it (`cut -f -2`:
// fields 1 to 2): given to parseArgs as --name=value, which otherwise refuses a value starting with a dash
// as "ambiguous", in three lines.
function joinValues(args: string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const takesValue = new Set<string>();
  for (const [name, option] of Object.entries(options)) {
    if (option.type !== 'string') continue;
    takesValue.add(`--${name}`);
    if (option.short) takesValue.add(`-${option.short}`);
  }
  const long = (flag: string) =>
    flag.startsWith('--') ? flag : `--${Object.entries(options).find(([, o]) => `-${o.short}` === flag)![0]}`;
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') return out.concat(args.slice(i));
    // A group of short flags whose first that takes a value is its last (-Df -2): the group, then that
    // flag. (An earlier one takes the rest of the group as its value, as getopt has it: -of is -o f.)
    const letters = /^-[A-Za-z]{2,}$/.test(args[i]) ? [...args[i].slice(1)] : [];
    const taker = letters.findIndex((letter) => takesValue.has(`-${letter}`));
    const flag = letters.length > 0 && taker === letters.length - 1 ? `-${letters[taker]}` : args[i];
    if (takesValue.has(flag) && i + 1 < args.length && args[i + 1].startsWith('-') && args[i + 1] !== '-') {
      if (flag !== args[i]) out.push(args[i].slice(0, -1));
      out.push(`${long(flag)}=${args[++i]}`);
    } else {
      out.push(args[i]);
    }
  }
  return out;
}

function parse(
  command: string,
  args: string[],
  options: ParseArgsConfig['options'],
  files = Number.POSITIVE_INFINITY, // how many of the positionals name files (query's keys do not)
): { values: Values; files: string[] } {
  try {
    const { values, positionals, tokens } = parseArgs({
      args: joinValues(args, options ?? {}),
      options: { ...options, ...HELP_OPTION },
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
    // Two files named would be one of them, unseen (the last): refused, as sort refuses two -o names.
    for (const name of ['output', 'seen']) {
      const given = tokens.flatMap((token) => (token.kind === 'option' && token.name === name ? [token.value] : []));
      if (new Set(given).size > 1)
        throw new UsageError(
          `${command}: ${name === 'output' ? '-o, --output' : '--seen'} given ${given.length} times ` +
            `(${given.join(', ')}): give it once`,
        );
    }
    // An empty name names no file (and would reach the file system as the current folder, or nothing):
    // refused as sort refuses it, naming the argument. (An empty key is a key: the empty line's.)
    if (positionals.slice(0, files).includes('')) throw new UsageError(`${command}: a file name is empty ("")`);
    const named = values as Values;
    if (named.output === '')
      throw new UsageError(`${command}: -o, --output needs a file name (or - for standard output), got ""`);
    if (named.seen === '') throw new UsageError(`${command}: --seen needs a file name, got ""`);
    // A name ending in / is a folder's: it made a regular file of that name when none was there (sort -o
    // refuses it, as the file system does).
    for (const [flag, name] of [
      ['-o', named.output],
      ['--seen', named.seen],
    ] as const) {
      if (typeof name === 'string' && name.endsWith('/'))
        throw new UsageError(`${command}: ${flag} ${name}: a name ending in / is a folder's, not a file's`);
    }
    return { values: values as Values, files: positionals };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // One line: parseArgs explains some errors over several.
    const message = (error as Error).message
      .replace(/\. To specify a positional argument.*$/s, '')
      .replace(/\s*\n\s*/g, ' ');
    throw new UsageError(`${command}: ${message.charAt(0).toLowerCase()}${message.slice(1)}`);
  }
}

function wholeNumber(flag: string, text: string | boolean | undefined, most?: number): number | undefined {
  if (text === undefined || typeof text === 'boolean') return undefined;
  // Underscores only between digits, as in 1_000 ("_5" or "1__0" is a typing slip).
  const digits = /^\d+(_\d+)*$/.test(text) ? text.replace(/_/g, '') : '';
  if (!/^\d+$/.test(digits) || Number(digits) < 1) {
    throw new UsageError(`${flag} must be a whole number >= 1, got "${text}"`);
  }
  if (!Number.isSafeInteger(Number(digits)))
    throw new UsageError(`${flag} must be at most ${most ?? Number.MAX_SAFE_INTEGER}, got "${text}"`);
  if (most !== undefined && Number(digits) > most)
    throw new UsageError(`${flag} must be at most ${most}, got "${text}"`);
  return Number(digits);
}

/** --threads: at most this many threads (default: as many as the machine runs at once). */
const threadsFlag = (values: Values) => wholeNumber('--threads', values.threads, MAX_THREADS) ?? cores();
const MAX_THREADS = 256;

/** --capacity: lines (dedup) or keys (build), at most what a first table in the heap can hold. */
const capacityFlag = (values: Values) => wholeNumber('--capacity', values.capacity, MAX_DEDUP_CAPACITY);
/** --window: the distinct lines a run remembers (dedup). */
const windowFlag = (values: Values) => wholeNumber('--window', values.window, MAX_WINDOW);

function rate(flag: string, text: string | boolean | undefined, fallback: number): number {
  if (text === undefined || typeof text === 'boolean') return fallback;
  const value = Number(text);
  if (text.trim() === '' || !(value > 0 && value < 1)) {
    throw new UsageError(`${flag} must be a number greater than 0 and less than 1, got "${text}"`);
  }
  if (value < MIN_GROWING_FP_RATE) {
    throw new UsageError(
      `${flag} ${text} is too small for a filter that grows: each doubling takes a bit from the ` +
        `fingerprints already stored, and below ${MIN_GROWING_FP_RATE} even 40-bit slots leave no bit to give; use ${MIN_GROWING_FP_RATE} or more`,
    );
  }
  return value;
}

/**
 * --capacity with --fp-rate: a filter that starts that large cannot keep every rate (each doubling takes a
 * bit from its slots, and a larger start has fewer position bits to give), so a pair the filter cannot make
 * is a usage error naming both flags and the least rate that start takes. After ready().
 */
function capacityWithRate(command: string, values: Values, fpRate: number | undefined): void {
  const capacity = capacityFlag(values);
  if (capacity === undefined || fpRate === undefined) return;
  const works = (rate: number) => {
    try {
      planDedup({ fpRate: rate, capacity });
      return true;
    } catch (error) {
      if (error instanceof CuckooFilterError && error.code === 'INVALID_ARGUMENT') return false;
      throw error;
    }
  };
  if (works(fpRate)) return;
  // The least rate that works, to three digits, rounded up: bisected on a log scale (the rates that work
  // are those above a threshold).
  let low = Math.log(fpRate);
  let high = Math.log(0.5);
  for (let i = 0; i < 60; i++) {
    const middle = (low + high) / 2;
    if (works(Math.exp(middle))) high = middle;
    else low = middle;
  }
  const unit = 10 ** (Math.floor(Math.log10(Math.exp(high))) - 2);
  const least = Number((Math.ceil(Math.exp(high) / unit) * unit).toPrecision(3));
  throw new UsageError(
    `${command}: --fp-rate ${values['fp-rate']} is too small for a filter that starts with room for ${capacity} lines ` +
      `(--capacity): each doubling takes a bit from the fingerprints already stored, and a larger start leaves fewer ` +
      `to give; use --fp-rate ${least} or more, or a smaller --capacity`,
  );
}

const STDIN = '-';

// Whether two paths name one file (the same path, or an existing file reached both ways).
function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  const x = statSync(a, { throwIfNoEntry: false });
  const y = statSync(b, { throwIfNoEntry: false });
  return x !== undefined && y !== undefined && x.dev === y.dev && x.ino === y.ino;
}

async function help(command: keyof typeof HELP): Promise<number> {
  await printToStdout(`${HELP[command]}\n`);
  return 0;
}

// Files are counted first (runEngine) from this size (a smaller one starts no larger than its lines anyway)
// up to what the page cache keeps for the second reading: half the free memory, at most 16 GiB. Larger ones
// would be read from disk twice, and start at once instead, their filter doubling as from a pipe.
const COUNT_FROM_BYTES = 8 << 20;
function countsFirst(files: readonly string[], bytes: number): boolean {
  return readableTwice(files) && bytes >= COUNT_FROM_BYTES && bytes <= Math.min(os.freemem() / 2, 16 * 2 ** 30);
}
// A count takes another thread for each this many bytes, up to --threads: starting one (loading the module
// there) takes about as long as counting 90 MB here, so a thread pays for itself from about twice that.
const COUNT_BYTES_PER_THREAD = 128 << 20;
// The count's threads: --threads, at most one a core (more would only take memory, about 33 MB each) and
// one a COUNT_BYTES_PER_THREAD. One under a limit on the address space (ulimit -v): a worker reserves
// gigabytes of it for its WebAssembly memory and code, and V8 ends the whole process when it cannot.
function countThreads(threads: number, bytes: number): number {
  if (addressSpaceLimited()) return 1;
  return Math.max(1, Math.min(threads, cores(), Math.floor(bytes / COUNT_BYTES_PER_THREAD)));
}
function addressSpaceLimited(): boolean {
  try {
    return !/^Max address space\s+unlimited/m.test(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return false; // no /proc (not Linux): no such limit is known
  }
}
// Whether dedup's run is partitioned between this thread and a helper: a core for it (and --threads 2 or
// more, the default), no --seen state (its filter is one, read and written whole), and inputs of any size
// when --threads asks for threads, else regular files (inputBytes known) of PARTITION_FROM_BYTES or more. Not
// a pipe by default: its size is unknown, and the helper's start and memory cost more than they save below
// about 64 MB (16 MB of unique lines through `cat |`: 0.37-0.39 s on two threads, 0.20-0.25 s on one; 100
// MB: 0.68-0.75 s, 0.82-0.95 s), where a run cannot move to two threads once it has begun.
function runsPartitioned(values: Values, inputBytes: number | undefined): boolean {
  if (values.seen !== undefined || values.window !== undefined) return false; // (WINDOW_ON_ONE_THREAD)
  if (Math.min(threadsFlag(values), cores()) < 2 || addressSpaceLimited()) return false;
  return values.threads !== undefined || (inputBytes !== undefined && inputBytes >= PARTITION_FROM_BYTES);
}

/** What dedup and build use of a run's engine, one thread's or a partitioned one's. */
interface Engine {
  readonly stats: LineDedupStats;
  exportFilter(): Uint8Array;
  dispose(): void | Promise<void>;
}
const cores = () => os.availableParallelism?.() ?? os.cpus().length;
// The filter's start for a count of distinct keys: 4% for the count's error (5 of its standard errors, 0.81%:
// a doubling for want of room about once in a million files), and room for the table to end about 85% full
// rather than 91%, as the last tenth of a table's load costs the most kicks (docs/PERFORMANCE.md).
const COUNT_ROOM = 1.04 * (0.95 / 0.88);

// dedup and build: the engine over the inputs. `keep` receives the new lines (dedup writes them; build
// has no use for them); returns the deduplicator, ended.
async function runEngine(
  values: Values,
  files: string[],
  inputBytes: number | undefined,
  fpRate: number | undefined,
  what: string,
  keep: ((bytes: Uint8Array) => Promise<void>) | undefined,
  seen?: CuckooFilter,
): Promise<Engine> {
  await loadModule();
  const rules = {
    zeroTerminated: values['zero-terminated'] === true,
    duplicates: values.duplicates === true,
    fields: values.fields as string | undefined,
    delimiter: values.delimiter as string | undefined,
    csv: values.csv === true,
  };
  // A --seen state made now is for every run to come, not for this input: it starts as for a pipe.
  const planned = values.seen === undefined ? inputBytes : undefined;
  const showProgress = (doing: string) =>
    makeProgress(NAME, doing, inputBytes, values.progress === true, values['no-progress'] === true);
  // Read into the heap, where the engine reads the blocks in place (no copy of each block into it).
  const heap = heapBuffers();
  // The engine's INVALID_ARGUMENT is about the input against the arguments: a column name the CSV header
  // lacks (a usage error), or CSV files whose headers differ or that end inside quotes.
  let file = files[0]; // the one being read, for the messages
  const usage = <T>(call: () => T): T => {
    try {
      return call();
    } catch (error) {
      if (error instanceof CuckooFilterError && error.code === 'INVALID_ARGUMENT') {
        if (error.message.startsWith('no column named'))
          throw new UsageError(`dedup: -f, --fields "${values.fields}": ${error.message}`);
        throw new InputError(`${file === '-' ? 'standard input' : file}: --csv: ${error.message}`);
      }
      throw error;
    }
  };
  // Files read once first, to count their distinct keys: the filter then starts with room for them, where
  // it would double into a table of up to twice their size (and spend its last tenth at each size full).
  let capacity = capacityFlag(values);
  const window = windowFlag(values); // a window's filter is made for it: nothing to count
  // dedup of files of 8 MiB or more whose records mostly repeat the one before them (mostlyRepeats says
  // why): not counted where the plan for their size alone reaches every line they can hold (uncountedPlan),
  // and run on one thread unless --threads says otherwise, counted or not, of any size: such records never
  // reach a filter, so a helper would have little to decide (docs/PERFORMANCE.md, "A file of runs is not
  // counted"). `build` counts them still: the filter is what it writes, and the count makes it as small
  // as its keys.
  const deduplicating = keep !== undefined; // (build has no use for the lines)
  const recordEnd = rules.zeroTerminated ? 0 : 10;
  const repeats =
    deduplicating &&
    !seen &&
    !window &&
    planned !== undefined &&
    planned >= COUNT_FROM_BYTES &&
    readableTwice(files) &&
    mostlyRepeats(files, recordEnd);
  const partition =
    keep !== undefined && runsPartitioned(values, planned) && !(repeats && values.threads === undefined);
  // A partitioned run's helper starts now: it loads the module (about 0.1 s of a core) while the count
  // below reads, where it was started after it and the run's first calls waited for it.
  let helper = partition ? helperLink() : undefined;
  try {
    if (
      !seen &&
      !window &&
      capacity === undefined &&
      planned !== undefined &&
      countsFirst(files, planned) &&
      !(repeats && uncountedPlan({ fpRate, inputBytes: planned, ...rules }, files)?.reaches)
    ) {
      const counting = showProgress(`${what} counted, to size the filter`);
      const { estimate, lines } = await countDistinctKeys({
        files,
        rules,
        threads: countThreads(threadsFlag(values), planned),
        heap,
        usage,
        reading: (next) => {
          file = next;
        },
        progress: counting && ((bytes, counted) => counting.update(bytes, counted)),
      });
      counting?.done(lines);
      capacity = Math.min(MAX_DEDUP_CAPACITY, Math.ceil(estimate * COUNT_ROOM) + 1);
      file = files[0];
    }
  } catch (error) {
    await helper?.terminate();
    throw error;
  }
  const options = seen
    ? { seen, ...rules }
    : window
      ? { fpRate, inputBytes: planned, window, ...rules }
      : { fpRate, capacity, inputBytes: planned, ...rules };
  const progress = showProgress(what);
  const engine = helper ? await partitioned(options, helper) : undefined;
  helper = undefined; // the run's now, or ended
  const deduper = engine ? undefined : new LineDeduper(options);
  // The calls, awaited through the command's mapping of errors: the new lines are written before the next
  // call, so a view of the heap will do.
  const call = async <T>(run: () => T | Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      return usage(() => {
        throw inFlags(error);
      });
    }
  };
  const lines = () => (engine ?? deduper!).stats.lines;
  const write = async (out: Uint8Array) => {
    if (keep && out.length > 0) await keep(out);
  };
  // With --csv each file has its header (the first's written, the others' checked against it).
  const nextFile = async (next: string) => {
    if (engine) await call(() => engine.nextInput(write));
    else await write(await call(() => deduper!.nextInput()));
    file = next;
  };
  try {
    // On two threads a pipe is read in whole blocks, and a block's lines are written a call later: when the
    // next block is slow to come (a stream's writer paused: tail -f), they are written meanwhile.
    const blocks = readBlocks(files, heap, recordEnd, true, nextFile, engine !== undefined);
    const settled = engine ? whenSlow(blocks, SETTLE_MS, () => call(() => engine.settle(write))) : blocks;
    for await (const block of settled) {
      // Read before the push: a push that grows the heap detaches a block read into it (its length is then 0).
      const length = block.length;
      if (engine) await call(() => engine.push(block, heap.holds(block), write));
      else await write(await call(() => (heap.holds(block) ? deduper!.pushInHeap(block) : deduper!.pushView(block))));
      progress?.update(length, lines());
    }
    if (engine) await call(() => engine.end(write));
    else await write(await call(() => deduper!.end()));
  } catch (error) {
    await engine?.dispose();
    throw error;
  }
  progress?.done(lines());
  return engine ?? deduper!;
}

// The engine's advice names LineDeduper's options; the command's user has the flags.
function inFlags(error: unknown): unknown {
  if (!(error instanceof CuckooFilterError) || error.code === 'INVALID_ARGUMENT') return error;
  const message = error.message
    .replaceAll('a larger capacity', 'a larger --capacity')
    .replaceAll('a larger fpRate', 'a larger --fp-rate')
    .replaceAll('the most fpRate ', 'the most --fp-rate ');
  return message === error.message ? error : new CuckooFilterError(error.code, message);
}

/** The blocks of `blocks`; whenever the next one has not come within `ms`, `idle` is awaited meanwhile. */
async function* whenSlow(
  blocks: AsyncGenerator<Uint8Array>,
  ms: number,
  idle: () => Promise<unknown>,
): AsyncGenerator<Uint8Array> {
  let reading = false; // a next() of `blocks` is under way
  try {
    for (;;) {
      const next = blocks.next();
      reading = true;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const slow = await Promise.race([
        next.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), ms);
        }),
      ]).finally(() => clearTimeout(timer));
      if (slow) await idle();
      const step = await next;
      reading = false;
      if (step.done) return;
      yield step.value;
    }
  } finally {
    // Ended early: the inputs are closed (at once, or after a read under way, which may wait for an idle
    // writer: not waited for here, as the error goes first).
    const closed = blocks.return(undefined);
    if (reading) closed.catch(() => {});
    else await closed;
  }
}

// A new helper thread for a partitioned run, undefined when none can be made (a limit on threads).
function helperLink(): HelperLink | undefined {
  try {
    return nodeHelperLink();
  } catch {
    return undefined;
  }
}

// A partitioned run (partitioned.ts) on `link`; one thread's when the helper cannot start (no memory for
// its module; the link is then ended): the output is the same.
async function partitioned(options: LineDeduperOptions, link: HelperLink): Promise<PartitionedRun | undefined> {
  try {
    return await PartitionedRun.start(
      options,
      link,
      (message) => new InputError(`${message} (--threads 1 runs on one thread)`),
    );
  } catch {
    return undefined;
  }
}

/**
 * The package's ready(), once, as the command says its failure. Under a limit on the address space
 * (ulimit -v) the module cannot be made: V8 reserves a WebAssembly memory's whole range at once (4 GiB and
 * guard regions). Emscripten's glue then wrote two lines of its own to standard error, and the command said
 * "unexpected error: Aborted(RangeError: WebAssembly.instantiate(): Out of memory: ...). Build with -s
 * ASSERTIONS=1 for more info." (an outside pass). So what is written to standard error while the module
 * loads is held back (the glue's console.warn was bound when it was imported: it is caught where it
 * writes), and written after, but for a load that failed for want of memory (nothing else writes then).
 */
let moduleLoaded: Promise<void> | undefined;
function loadModule(): Promise<void> {
  moduleLoaded ??= (async () => {
    const write = process.stderr.write;
    const held: Parameters<typeof write>[] = [];
    process.stderr.write = ((...args: Parameters<typeof write>) => held.push(args) > 0) as typeof write;
    let failure: { error: unknown } | undefined;
    try {
      await packageReady();
    } catch (error) {
      failure = { error };
    } finally {
      process.stderr.write = write;
    }
    const text = String((failure?.error as Error | undefined)?.message ?? failure?.error);
    if (failure && /out of memory/i.test(text))
      throw new CuckooFilterError(
        'OUT_OF_MEMORY',
        'no memory to load the WebAssembly module (it reserves over 4 GiB of address space)',
      );
    for (const args of held) write.apply(process.stderr, args);
    if (failure) throw failure.error;
  })();
  return moduleLoaded;
}

/** "1 line", "2 lines". */
function count(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

// The engine's option names in its messages, as the command's flags.
const FLAG_NAMES: [RegExp, string][] = [
  [/^fields /, '-f, --fields '],
  [/^delimiter /, '-t, --delimiter '],
  [/^csv and zeroTerminated /, '--csv and -z, --zero-terminated '],
  [/\bwith fields or csv\b/, 'with -f or --csv'],
  [/\(with csv\b/, '(with --csv'],
];

function withFlags(message: string): string {
  return FLAG_NAMES.reduce((text, [option, flag]) => text.replace(option, flag), message);
}

async function dedup(args: string[]): Promise<number> {
  const { values, files } = parse('dedup', args, {
    output: { type: 'string', short: 'o' },
    capacity: { type: 'string' },
    'fp-rate': { type: 'string' },
    threads: { type: 'string' },
    stats: { type: 'boolean' },
    'zero-terminated': { type: 'boolean', short: 'z' },
    duplicates: { type: 'boolean', short: 'D' },
    seen: { type: 'string' },
    delimiter: { type: 'string', short: 't' },
    fields: { type: 'string', short: 'f' },
    csv: { type: 'boolean' },
    window: { type: 'string' },
    ...PROGRESS_OPTIONS,
  });
  if (values.help) return help('dedup');
  const csv = values.csv === true;
  // The record options are the engine's to check: its INVALID_ARGUMENT, with the flags' names, is a usage
  // error (made now, before any input is opened; a LineDeduper holds nothing until its first block).
  await loadModule();
  try {
    new LineDeduper({
      fields: values.fields as string | undefined,
      delimiter: values.delimiter as string | undefined,
      csv,
      zeroTerminated: values['zero-terminated'] === true,
    }).dispose();
  } catch (error) {
    if (!(error instanceof CuckooFilterError && error.code === 'INVALID_ARGUMENT')) throw error;
    throw new UsageError(`dedup: ${withFlags(error.message)}`);
  }
  const inputs = files.length > 0 ? files : ['-'];
  const fpRate = values['fp-rate'] === undefined ? undefined : rate('--fp-rate', values['fp-rate'], 0);
  // Every flag is checked before the inputs are (a usage error is one whatever the files).
  const seenPath = values.seen as string | undefined;
  capacityWithRate('dedup', values, fpRate); // checked whether or not an existing FILE makes it unused
  if (windowFlag(values) !== undefined) {
    if (seenPath !== undefined) {
      throw new UsageError(
        'dedup: --window goes without --seen: a state remembers every line across runs, a window forgets the oldest',
      );
    }
    if (values.capacity !== undefined)
      throw new UsageError('dedup: --window goes without --capacity: the filter is made for the window');
    if (fpRate !== undefined && fpRate < MIN_WINDOW_FP_RATE) {
      throw new UsageError(
        `dedup: --fp-rate ${values['fp-rate']} is too small for --window's filter, which does not grow (32-bit fingerprints at the most); use ${MIN_WINDOW_FP_RATE} or more`,
      );
    }
  }
  threadsFlag(values);
  if (
    seenPath === STDIN ||
    (seenPath !== undefined &&
      values.output !== undefined &&
      values.output !== '-' &&
      sameFile(seenPath, values.output as string))
  ) {
    throw new UsageError(
      `dedup: --seen FILE must be a file of its own, not standard input or the output, got "${seenPath}"`,
    );
  }
  const inputBytes = checkInputs(inputs); // before the output is created
  // The lines of earlier runs, when FILE exists and is not empty (read and checked before anything is
  // written: a file that is not a filter is an error, and nothing is written).
  let seenStat: ReturnType<typeof statSync>;
  try {
    seenStat = seenPath === undefined ? undefined : statSync(seenPath, { throwIfNoEntry: false });
  } catch (error) {
    throw new InputError(
      `--seen ${seenPath}: ${(error as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'a part of the path is not a folder' : describeError(error as NodeJS.ErrnoException)}`,
    );
  }
  // A state is read, then replaced by a rename: a FIFO, a device or /dev/stdin (`--seen <(cmd)`) would be
  // read by the run that writes it (it hung) or replaced behind the name of another file. /dev/shm is a
  // folder of regular files in memory (it was refused as "under /dev").
  if (seenPath !== undefined && (notRegular(seenStat) || /^\/(dev\/(?!shm\/)|proc\/)/.test(resolve(seenPath)))) {
    throw new UsageError(
      `dedup: --seen FILE must be a regular file (or not exist yet): ${seenPath} is ` +
        // (One not there yet under /dev or /proc is no special file: it cannot be made.)
        (seenStat ? kindOf(seenStat) : 'under /dev or /proc, where no state can be kept'),
    );
  }
  // Two runs on one state would each replace it, and one run's lines would be lost from it: a run holds
  // the state from before it reads it until it has replaced it (a second one waits).
  if (seenPath !== undefined) {
    await lockFile(seenPath, (message) => process.stderr.write(`${NAME} dedup: ${message}\n`));
    seenStat = statSync(seenPath, { throwIfNoEntry: false }); // as the run before this one left it
  }
  let seen: CuckooFilter | undefined;
  if (seenStat && !(seenStat.isFile() && seenStat.size === 0)) {
    await loadModule();
    try {
      seen = CuckooFilter.import(await readFilterFile(seenPath!));
    } catch (error) {
      throw error instanceof CuckooFilterError ? new InputError(`${seenPath}: ${error.message}`) : error;
    }
  }
  // The state's temporary file is made before the output's, so that a state that cannot be written (its
  // folder missing) stops the run before the output is touched.
  const state = seenPath === undefined ? undefined : await openOutput(seenPath);
  const out = await openOutput(values.output as string | undefined);
  let deduper: Engine;
  try {
    deduper = await runEngine(values, inputs, inputBytes, fpRate, 'lines', (bytes) => out.write(bytes), seen);
  } catch (error) {
    if (seen && error instanceof CuckooFilterError && error.code === 'CAPACITY_EXCEEDED') {
      // Copies crowding a new line out (a state made with add(), not by this command): the message says so.
      const why = /\bcopies\b/.test(error.message)
        ? `that filter holds keys added many times, and growing would not make room`
        : seen.growsInPlace
          ? `that filter can double no more (its rate allows so many doublings from its start, for a filter made by ${NAME} build or with --fp-rate too)`
          : seen.growth === 0
            ? `that filter was made without growth, and is full`
            : `that filter can chain no more sub-filters (its maxSubFilters, or its fingerprints at 32 bits)`;
      throw new InputError(
        `--seen ${seenPath}: ${error.message}: ${why}. ${seenPath} was left as it was, so a next run ` +
          `prints again any line this one printed; to go on, start a new state (move ${seenPath} away: the ` +
          `next run makes one that grows as the lines come)`,
      );
    }
    throw error;
  }
  // Both files are written in full before either is renamed (commitAll), the output's rename first: a
  // run that fails (a full disk) leaves both as they were, and one killed between the renames prints its
  // new lines again next time, never loses one. A run that met no new line left the filter as FILE holds
  // it: FILE stays, byte for byte.
  if (state && seen && deduper.stats.unique === 0) {
    state.abort();
    await out.commit();
  } else if (state) {
    await state.write(seen ? seen.export() : deduper.exportFilter());
    await commitAll([out, state]);
  } else {
    await out.commit();
  }
  if (values.stats) {
    const s = deduper.stats;
    const plan = s.plan;
    process.stderr.write(
      (values.duplicates
        ? `${NAME} dedup: ${count(s.lines, 'line')} read, ${count(s.duplicates, 'duplicate')} written, ${count(s.unique, 'unique line')} dropped\n`
        : `${NAME} dedup: ${count(s.lines, 'line')} read, ${count(s.unique, 'unique line')} written, ${count(s.duplicates, 'duplicate')} removed\n`) +
        (windowFlag(values) !== undefined
          ? `${NAME} dedup: a window of the last ${windowFlag(values)} unique lines: a filter of ${s.fingerprintBits}-bit ` +
            `fingerprints, ${s.filterBytes} bytes, and ${8 * windowFlag(values)!} bytes for the lines to forget\n`
          : plan
            ? `${NAME} dedup: filter started with room for ${count(plan.capacity, 'line')} and doubles in place up to ` +
              `${plan.maxDoublings} times; doubled ${s.doublings} time(s), ${s.fingerprintBits}-bit slots, ${s.filterBytes} bytes\n`
            : `${NAME} dedup: the filter of ${seenPath}: ` +
              (seen?.growsInPlace
                ? `doubled ${s.doublings} time(s), ${s.fingerprintBits}-bit slots, ${s.filterBytes} bytes\n`
                : `${s.subFilters} sub-filter(s), ${s.fingerprintBits}-bit fingerprints at first, ${s.filterBytes} bytes\n`)) +
        `${NAME} dedup: expected unique lines wrongly dropped as false positives: at most ${s.wrongDropBound.toPrecision(3)}` +
        (plan?.automatic
          ? ` (the default aims at ${DEDUP_LOSS_BUDGET} or less: ${s.wrongDropBound <= DEDUP_LOSS_BUDGET ? 'met' : `not met at this many unique lines; ${plan.capacity < s.unique ? '--capacity near their number lowers it' : 'no start does better'}`})`
          : '') +
        '\n' +
        (csv ? `${NAME} dedup: the CSV header was written and is not counted above\n` : ''),
    );
  }
  await deduper.dispose();
  seen?.dispose();
  return 0;
}

function notRegular(stat: ReturnType<typeof statSync>): boolean {
  return stat !== undefined && !stat.isFile();
}

function kindOf(stat: ReturnType<typeof statSync>): string {
  if (stat === undefined) return 'a special file';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a pipe (FIFO)';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'a special file'; // a regular file under /dev or /proc: /dev/stdin and the like
}

async function build(args: string[]): Promise<number> {
  const { values, files } = parse('build', args, {
    output: { type: 'string', short: 'o' },
    capacity: { type: 'string' },
    'fp-rate': { type: 'string' },
    threads: { type: 'string' },
    ...PROGRESS_OPTIONS,
  });
  if (values.help) return help('build');
  if (values.output === undefined)
    throw new UsageError('build: -o FILTER is required (where to write the filter; - for standard output)');
  const inputs = files.length > 0 ? files : ['-'];
  const fpRate = rate('--fp-rate', values['fp-rate'], BUILD_FP_RATE);
  await loadModule();
  capacityWithRate('build', values, fpRate);
  threadsFlag(values);
  const inputBytes = checkInputs(inputs); // before the output is created
  const output = values.output as string;
  const out = await openOutput(output);
  const deduper = await runEngine(values, inputs, inputBytes, fpRate, 'keys', undefined);
  // A filter file may be a dedup run's --seen state, which that run replaces when it ends: held as the
  // run holds it while the filter is written, so that neither replaces the other's filter unseen (an
  // outside pass, 2026-12-02: a build onto a state in use was lost without a word). Only then: the
  // build's input may be that run's output (dedup --seen S | build -o S), which ends when the run does.
  // A file it replaces (one there, or not yet), not a device or a FIFO, which it writes in place.
  const stat = output === STDIN ? null : statSync(output, { throwIfNoEntry: false });
  if (stat !== null && (stat === undefined || stat.isFile()))
    await lockFile(output, (message) => process.stderr.write(`${NAME} build: ${message}\n`));
  await out.write(deduper.exportFilter());
  await out.commit();
  await deduper.dispose();
  return 0;
}

async function loadFilter(path: string | undefined): Promise<CuckooFilter> {
  if (path === undefined) throw new UsageError('a FILTER file is required');
  await loadModule();
  const bytes = await readFilterFile(path);
  try {
    return CuckooFilter.import(bytes);
  } catch (error) {
    if (error instanceof CuckooFilterError && error.code === 'BAD_FORMAT') {
      throw new InputError(
        `${path === '-' ? 'standard input' : path}: ${error.message.replace(/^not a valid cuckoo filter export: /, 'not a valid filter file: ')}`,
      );
    }
    throw error;
  }
}

/**
 * The raw bytes of the command's arguments, where the system shows them (/proc/self/cmdline on Linux):
 * Node decodes argv as UTF-8 and replaces invalid bytes, so a key given that way cannot be trusted.
 */
function rawArguments(count: number): Buffer[] | undefined {
  try {
    const all = readFileSync('/proc/self/cmdline');
    const parts: Buffer[] = [];
    for (let start = 0; start < all.length; ) {
      const end = all.indexOf(0, start);
      parts.push(all.subarray(start, end === -1 ? all.length : end));
      start = end === -1 ? all.length : end + 1;
    }
    return parts.slice(parts.length - count);
  } catch {
    return undefined;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function checkKeyArguments(keys: string[], userArgs: string[]): void {
  const raw = rawArguments(userArgs.length);
  for (const key of keys) {
    // No line's key holds a newline, and its answer would be two lines (an outside pass, 2026-12-02).
    if (key.includes('\n'))
      throw new UsageError(
        `query: a KEY argument holds a newline (${JSON.stringify(key)}): a key is a line's bytes without it; ` +
          'give one KEY an argument, or the keys on standard input, one per line',
      );
    let valid = !key.includes('\uFFFD');
    if (raw && raw.length === userArgs.length) {
      // Every argument that reads as this key: one with invalid bytes and one with U+FFFD written out
      // read the same.
      valid = userArgs.every((arg, i) => {
        if (arg !== key) return true;
        try {
          strictUtf8.decode(raw[i]);
          return true;
        } catch {
          return false;
        }
      });
    }
    if (!valid) {
      throw new UsageError(
        `query: a KEY argument is not valid UTF-8 (${JSON.stringify(key)}); pass keys of other bytes ` +
          'on standard input, one per line',
      );
    }
  }
}

async function query(args: string[]): Promise<number> {
  const { values, files } = parse('query', args, {}, 1);
  if (values.help) return help('query');
  const [path, ...keys] = files;
  checkKeyArguments(keys, args);
  // Standard input by another name reads the filter too (it read the filter's bytes back as keys).
  if (keys.length === 0 && ['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0'].includes(path))
    throw new UsageError(`query: with FILTER ${path} (standard input), give the keys as arguments`);
  const filter = await loadFilter(path);
  const out = await openOutput(undefined);
  let anyAbsent = false;
  try {
    if (keys.length > 0) {
      for (const key of keys) {
        const found = filter.has(key);
        anyAbsent ||= !found;
        await out.write(Buffer.concat([found ? PRESENT : ABSENT, Buffer.from(key), NEWLINE]));
      }
    } else {
      // One block of answers per block of input, so memory stays constant whatever the input's length.
      for await (const answers of queryLines(filter, readBlocks(['-']))) {
        anyAbsent ||= answers.anyAbsent;
        await out.write(answers.bytes);
      }
    }
    await out.commit();
  } finally {
    filter.dispose();
  }
  return anyAbsent ? 1 : 0;
}

const PRESENT = Buffer.from('present\t');
const ABSENT = Buffer.from('absent\t');
const NEWLINE = Buffer.from('\n');

/** Answers for the lines of the blocks, by the line rules of docs/DEDUP.md, one output block per input block. */
async function* queryLines(
  filter: CuckooFilter,
  blocks: AsyncIterable<Uint8Array>,
): AsyncGenerator<{ bytes: Buffer; anyAbsent: boolean }> {
  let carry: Buffer[] = []; // the pieces of a line not yet complete (joined once, when it is)
  const answer = (line: Buffer, parts: Buffer[]): boolean => {
    const key = line.length > 0 && line[line.length - 1] === 13 ? line.subarray(0, line.length - 1) : line;
    const found = filter.has(key);
    parts.push(found ? PRESENT : ABSENT, key, NEWLINE);
    return !found;
  };
  for await (const chunk of blocks) {
    const block = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    const parts: Buffer[] = [];
    let anyAbsent = false;
    let start = 0;
    for (let newline = block.indexOf(10); newline !== -1; newline = block.indexOf(10, start)) {
      let line = block.subarray(start, newline);
      if (carry.length > 0) {
        line = Buffer.concat([...carry, line]);
        carry = [];
      }
      anyAbsent = answer(line, parts) || anyAbsent;
      start = newline + 1;
    }
    if (start < block.length) carry.push(Buffer.from(block.subarray(start)));
    if (parts.length > 0) yield { bytes: Buffer.concat(parts), anyAbsent };
  }
  if (carry.length > 0) {
    const parts: Buffer[] = [];
    const anyAbsent = answer(Buffer.concat(carry), parts);
    yield { bytes: Buffer.concat(parts), anyAbsent };
  }
}

// How a table's slots widen as it doubles, from its export's header (format version 8: docs/FORMAT.md,
// bytes 58 and 59, the doublings after which the slots are 4 bits wider): " (16 before doubling 7, 20 from
// it)", or nothing for slots of one width. Only the header is exported.
function widening(filter: CuckooFilter): string {
  const chunks = filter.exportChunks(64);
  const header = chunks.next().value;
  chunks.return(undefined);
  if (!header || header.length < 64 || header[4] + 256 * header[5] !== 8) return '';
  const [first, second] = [header[58], header[59]];
  const g = filter.doublings;
  const base = filter.fingerprintBits - 4 * (Number(g >= first) + Number(second !== 0 && g >= second));
  return ` (${base} before doubling ${first}, ${base + 4} from it${second !== 0 ? `, ${base + 8} from doubling ${second}` : ''})`;
}

async function info(args: string[]): Promise<number> {
  const { values, files } = parse('info', args, {});
  if (values.help) return help('info');
  if (files.length > 1) throw new UsageError('info: one FILTER at a time');
  const filter = await loadFilter(files[0]);
  // A chain's buckets and fingerprint bits are its first sub-filter's (the library's fields): said so,
  // beside the whole filter's items, load and bytes (an outside pass, 2026-12-02, read them as the whole's).
  const chained = filter.subFilterCount > 1 ? ` in the first of ${filter.subFilterCount} sub-filters` : '';
  const lines: Array<[string, string | number]> = [
    ['file', files[0] === '-' ? '(standard input)' : files[0]],
    ['items', filter.size],
    ['capacity', filter.capacity],
    ['load', `${(filter.loadFactor * 100).toFixed(2)}%`],
    ['bucket size', filter.bucketSize],
    ['buckets', `${filter.bucketCount}${chained}`],
    filter.growsInPlace
      ? ['slot bits', `${filter.fingerprintBits}${widening(filter)}`]
      : ['fingerprint bits', `${filter.fingerprintBits}${chained}`],
    ['semi-sorted buckets', filter.semiSorted ? 'yes' : 'no'],
    ['max kicks', filter.maxKicks],
    filter.growsInPlace
      ? ['growth', `doubles in place: ${filter.doublings} doubling(s) of at most ${filter.maxDoublings}`]
      : [
          'sub-filters',
          filter.growth
            ? `${filter.subFilterCount} (growth ${filter.growth}, at most ${filter.maxSubFilters})`
            : '1 (no growth)',
        ],
    ['seed', `0x${filter.seed.toString(16)}`],
    ['bytes', filter.byteLength],
    ['bits per item', filter.size > 0 ? ((filter.byteLength * 8) / filter.size).toFixed(2) : 'n/a (empty)'],
    ['expected fp rate', filter.expectedFpRate.toExponential(3)],
  ];
  filter.dispose();
  const out = await openOutput(undefined);
  await out.write(Buffer.from(lines.map(([k, v]) => `${k}: ${v}\n`).join('')));
  await out.commit();
  return 0;
}

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    process.stderr.write(`${HELP.main}\n`);
    return EXIT_USAGE;
  }
  if (command === '-h' || command === '--help' || command === 'help') {
    const topic = rest[0];
    return help(topic !== undefined && Object.hasOwn(HELP, topic) ? (topic as keyof typeof HELP) : 'main');
  }
  if (command === '-V' || command === '--version') {
    await printToStdout(`${NAME} ${version()}\n`);
    return 0;
  }
  const commands: Record<string, (args: string[]) => Promise<number>> = { dedup, build, query, info };
  if (!Object.hasOwn(commands, command))
    throw new UsageError(`unknown command "${command}" (dedup, build, query, info; see ${NAME} --help)`);
  return commands[command](rest);
}

// Stopped by a signal: remove the temporary files, leave every old file as it was, and end by the signal
// itself, as cat or sort do (a shell reports 128 + its number). Not process.exit(): it waits for the
// threads of pending file operations, and an open of a FIFO without its other end never returns. A signal
// that comes once the files are renamed into place (it may have come during their fsync) is too late:
// the run has completed, and ends as one that did (status 0), so that the status says what happened.
// Lines decided for standard output (or a device, a FIFO) are written, those still gathered included, as
// a cat that a signal ends has written every line it read (on two threads, a block's lines are decided
// about SETTLE_MS after it is read: those of the last block are not yet, and are lost).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    if (committed()) return;
    salvageOutputs();
    abortPending();
    process.kill(process.pid, signal);
  });
}

// Messages to standard error that cannot be written (2>/dev/full, a closed pipe) are lost, as C tools lose
// them, and change nothing else: the progress, --stats and lock notices were written with no handler, and
// the first failure ended the run on an unhandled 'error' event (exit 1, a temporary file left), or after
// it had replaced the output and the --seen state, reported as failed.
process.stderr.on('error', () => {});

function exitCodeOf(error: unknown, command: string | undefined): number {
  if (error instanceof UsageError) return EXIT_USAGE;
  return command === 'query' ? EXIT_USAGE : EXIT_ERROR;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  abortPending();
  if (error instanceof BrokenPipe) {
    // The reader went away (`| head`): stop at once and quietly, with the status of a process that
    // SIGPIPE ended, as cat or sort would have (Node itself ignores SIGPIPE).
    process.exit(EXIT_BROKEN_PIPE);
  }
  const known = error instanceof UsageError || error instanceof InputError || error instanceof CuckooFilterError;
  const message = known ? (error as Error).message : `unexpected error: ${(error as Error)?.message ?? String(error)}`;
  process.stderr.write(`${NAME}: ${message}\n`);
  if (process.env.CUCKOO_DEBUG === '1' && error instanceof Error && error.stack)
    process.stderr.write(`${error.stack}\n`);
  process.exitCode = exitCodeOf(error, process.argv[2]);
}
