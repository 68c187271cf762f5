#!/usr/bin/env node
// cuckoo: deduplicate and query large files with a cuckoo filter (the cuckoo-wasm package).
//
// Lines are bytes: a line's key is its bytes without the line terminator ("\n", or "\r\n": a trailing
// "\r" is not part of the key, so a CRLF file and its LF copy deduplicate alike). Output lines keep their
// own terminator; a last line without one gets "\n", as awk does.
import { closeSync, createReadStream, createWriteStream, existsSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { ready, CuckooFilter, CuckooFilterError, lineRanges } from '../dist/esm/index.js';

const NAME = 'cuckoo';
// dedup's default: one unique line wrongly dropped per million unique lines at the most. With the
// default 4-slot buckets that is 23-bit fingerprints, about 3 bytes of memory per unique line.
const DEDUP_FP_RATE = 1e-6;
const BUILD_FP_RATE = 0.001;
// The first sub-filter's size when the input size is unknown (standard input) and --capacity is not
// given. Filters grow (doubling) when they fill up, so this is a starting point, not a limit.
const DEFAULT_PIPE_CAPACITY = 1_000_000;
const GROWTH = 2;
const CHUNK = 1 << 20;

class UsageError extends Error {}
class InputError extends Error {}

const HELP = {
  main: `usage: ${NAME} <command> [options]

Commands:
  dedup [FILE...]            write each line the first time it is seen, in input order
  build [FILE...] -o FILE    build a filter from keys, one per line
  query FILTER [KEY...]      tell whether keys are (probably) in a filter
  info FILTER                describe a filter

Run '${NAME} <command> --help' for a command's options. FILE '-' or no FILE: standard input.`,
  dedup: `usage: ${NAME} dedup [options] [FILE...]

Writes each line of the input files (or standard input) the first time it is seen, in input order.
A cuckoo filter remembers the lines seen, in about 3 bytes per unique line (with the default rate),
instead of keeping the lines themselves. A line never seen before is dropped only by a false
positive: with the default rate, at most about one unique line per million.

Options:
  --capacity N     unique lines to size for (default: estimated from the file sizes, assuming every
                   line unique; ${DEFAULT_PIPE_CAPACITY.toLocaleString('en')} for standard input). The filter doubles
                   when it fills up, so this is where it starts, not a limit.
  --fp-rate R      false-positive rate, 0 < R < 1 (default ${DEDUP_FP_RATE})
  -o, --output F   write to F instead of standard output
  --stats          print counts and a bound on the expected number of wrongly dropped lines
  --progress       show progress on standard error even when it is not a terminal
  --no-progress    never show progress
  -h, --help       this help`,
  build: `usage: ${NAME} build [options] [FILE...] -o FILTER

Builds a filter from keys, one per line (duplicates are stored once), and writes it to FILTER.

Options:
  -o, --output F   the filter file to write (required)
  --capacity N     keys to size for (default: estimated from the file sizes; ${DEFAULT_PIPE_CAPACITY.toLocaleString('en')} for
                   standard input); the filter grows past it when needed
  --fp-rate R      false-positive rate, 0 < R < 1 (default ${BUILD_FP_RATE})
  --progress, --no-progress, -h/--help as for dedup`,
  query: `usage: ${NAME} query [options] FILTER [KEY...]

Prints "present" or "absent" and the key, tab-separated, for each KEY (or each line of standard input).
"present" means probably present (false positives at the filter's rate); "absent" is certain.
With exactly one KEY argument the exit code says it too: 0 present, 1 absent.

Options:
  -h, --help       this help`,
  info: `usage: ${NAME} info FILTER

Prints the filter's options, items, load, bits per item and expected false-positive rate.

Options:
  -h, --help       this help`,
};

// --- arguments -------------------------------------------------------------------------------------

function parseArguments(command, argv, spec) {
  const options = { files: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      options.files.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-h' || arg === '--help') {
      options.help = true;
      continue;
    }
    if (arg.startsWith('-') && arg !== '-') {
      const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
      const name = spec[flag];
      if (!name) throw new UsageError(`${command}: unknown option ${flag}`);
      if (name.startsWith('!')) {
        if (inline !== undefined) throw new UsageError(`${command}: ${flag} takes no value`);
        options[name.slice(1)] = true;
        continue;
      }
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`${command}: ${flag} needs a value`);
      options[name] = value;
      continue;
    }
    options.files.push(arg);
  }
  return options;
}

function positiveInteger(flag, text) {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text.replace(/_/g, '')) || !Number.isSafeInteger(Number(text.replace(/_/g, ''))) || value < 1) {
    throw new UsageError(`${flag} must be a whole number >= 1, got "${text}"`);
  }
  return Number(text.replace(/_/g, ''));
}

function rate(flag, text, fallback) {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!(value > 0 && value < 1) || text.trim() === '') {
    throw new UsageError(`${flag} must be a number greater than 0 and less than 1, got "${text}"`);
  }
  return value;
}

// --- reading lines ---------------------------------------------------------------------------------

function inputSize(files) {
  let total = 0;
  for (const file of files) {
    if (file === '-') return undefined;
    total += statSync(file).size;
  }
  return total;
}

function checkReadable(files) {
  for (const file of files) {
    if (file === '-') continue;
    if (!existsSync(file)) throw new InputError(`${file}: no such file`);
    const stat = statSync(file);
    if (stat.isDirectory()) throw new InputError(`${file}: is a directory`);
    try {
      closeSync(openSync(file, 'r'));
    } catch (error) {
      throw new InputError(`${file}: cannot read (${error.code ?? error.message})`);
    }
  }
}

// Lines (unique lines at worst) to size for: total bytes over the mean line length of a sample.
function estimateLines(files) {
  let bytes = 0;
  let sampleBytes = 0;
  let sampleLines = 0;
  const buffer = Buffer.alloc(1 << 16);
  for (const file of files) {
    const size = statSync(file).size;
    bytes += size;
    const fd = openSync(file, 'r');
    try {
      const read = readSync(fd, buffer, 0, buffer.length, 0);
      sampleBytes += read;
      for (let at = buffer.indexOf(10); at !== -1 && at < read; at = buffer.indexOf(10, at + 1)) sampleLines++;
      if (read > 0 && buffer[read - 1] !== 10) sampleLines++;
    } finally {
      closeSync(fd);
    }
  }
  if (bytes === 0) return 1;
  const meanLine = sampleLines > 0 ? sampleBytes / sampleLines : bytes;
  // 10% headroom for files whose lines are shorter further in than in the sample.
  return Math.max(1, Math.ceil((bytes / meanLine) * 1.1));
}

/**
 * Reads the files in order and awaits onBlock(block, last) for each block of whole lines: `block` ends
 * with "\n", except the final piece of a file without a trailing newline, passed with last = true. One
 * block per chunk read (about 1 MiB), so memory does not grow with the input.
 */
async function forEachBlock(files, onBlock, progress) {
  for (const file of files) {
    const stream = file === '-' ? process.stdin : createReadStream(file, { highWaterMark: CHUNK });
    let carry = null;
    for await (const chunk of stream) {
      progress?.bytes(chunk.length);
      const data = carry ? Buffer.concat([carry, chunk]) : chunk;
      const lastNewline = data.lastIndexOf(10);
      if (lastNewline === -1) {
        carry = data;
        continue;
      }
      carry = lastNewline + 1 < data.length ? data.subarray(lastNewline + 1) : null;
      await onBlock(data.subarray(0, lastNewline + 1), false);
      progress?.tick();
    }
    if (carry && carry.length > 0) await onBlock(carry, true);
  }
}

/** Calls onLine(key) for every line of the files (key: the line's bytes without its ending). */
async function forEachLine(files, onLine) {
  await forEachBlock(files, (block) => {
    const ranges = lineRanges(block);
    for (let i = 0; i < ranges.length; i += 2) onLine(block.subarray(ranges[i], ranges[i + 1]));
  });
}

// --- progress --------------------------------------------------------------------------------------

function makeProgress(options, totalBytes, what) {
  const show = options.progress ? true : options['no-progress'] ? false : Boolean(process.stderr.isTTY);
  if (!show) return undefined;
  const started = Date.now();
  let bytes = 0;
  let lines = 0;
  let last = 0;
  const draw = (final) => {
    const seconds = Math.max((Date.now() - started) / 1000, 1e-3);
    const rate = Math.round(lines / seconds).toLocaleString('en');
    let text = `${NAME}: ${lines.toLocaleString('en')} ${what}, ${rate} lines/s`;
    if (totalBytes) {
      const fraction = Math.min(bytes / totalBytes, 1);
      const eta = fraction > 0 ? Math.round(seconds / fraction - seconds) : 0;
      text += `, ${(fraction * 100).toFixed(1)}%, ETA ${eta}s`;
    }
    // On a terminal the line redraws in place; elsewhere (--progress into a log) plain lines.
    if (process.stderr.isTTY) process.stderr.write(`\r${text}\x1b[K${final ? '\n' : ''}`);
    else process.stderr.write(`${text}\n`);
  };
  const interval = process.stderr.isTTY ? 200 : 1000;
  return {
    bytes(n) { bytes += n; },
    lines(n) { lines += n; },
    tick() {
      const now = Date.now();
      if (now - last > interval) { last = now; draw(false); }
    },
    done() { draw(true); },
  };
}

// Filters made by a command, disposed when it ends (Node 20 has no `using` outside TypeScript).
const ownedFilters = [];
function owned(filter) {
  ownedFilters.push(filter);
  return filter;
}

// --- commands --------------------------------------------------------------------------------------

function sizeFor(options, files, flag = '--capacity') {
  const given = positiveInteger(flag, options.capacity);
  if (given !== undefined) return { capacity: given, source: 'given' };
  if (files.includes('-')) return { capacity: DEFAULT_PIPE_CAPACITY, source: 'pipe' };
  return { capacity: estimateLines(files), source: 'estimated' };
}

// Both commands' filters grow; they stop only at the chain limit (fingerprints cannot pass 32 bits).
function makeFilter(sizing, fpRate) {
  return owned(new CuckooFilter({ capacity: sizing.capacity, fpRate, growth: GROWTH, maxSubFilters: 32 }));
}

function fullError(what, count, sizing, filter) {
  const advice = `rerun with --capacity ${Math.max(count * 2, 1000)} (or the number of ${what} you expect)`;
  return new InputError(`the filter is full after ${count.toLocaleString('en')} ${what}: it started at ` +
    `${sizing.capacity.toLocaleString('en')} and grew to ${filter.subFilterCount} sub-filters, its limit; ${advice}`);
}

async function dedup(argv) {
  const options = parseArguments('dedup', argv, {
    '--capacity': 'capacity', '--fp-rate': 'fp-rate', '-o': 'output', '--output': 'output',
    '--stats': '!stats', '--progress': '!progress', '--no-progress': '!no-progress',
  });
  if (options.help) return help('dedup');
  const files = options.files.length > 0 ? options.files : ['-'];
  const fpRate = rate('--fp-rate', options['fp-rate'], DEDUP_FP_RATE);
  checkReadable(files);
  const sizing = sizeFor(options, files);
  await ready();
  const filter = makeFilter(sizing, fpRate);
  const out = options.output ? createWriteStream(options.output) : process.stdout;
  const progress = makeProgress(options, inputSize(files), 'lines');
  let lines = 0;
  let unique = 0;
  let full = false;
  const write = (bytes) => (out.write(bytes) ? undefined : new Promise((resolve) => out.once('drain', resolve)));
  await forEachBlock(files, async (block, last) => {
    if (full) return;
    const ranges = lineRanges(block);
    const count = ranges.length / 2;
    const codes = filter.addIfAbsentRanges(block, ranges);
    // Copy each run of consecutive new lines at once, with their own line endings.
    const output = Buffer.allocUnsafe(block.length + 1);
    let written = 0;
    let runStart = -1;
    let i = 0;
    for (; i < count; i++) {
      const code = codes[i];
      if (code === 1) {
        if (runStart < 0) runStart = ranges[2 * i];
        continue;
      }
      if (runStart >= 0) written += block.copy(output, written, runStart, ranges[2 * i]);
      runStart = -1;
      if (code >= 2) {
        full = true;
        break;
      }
    }
    if (runStart >= 0) written += block.copy(output, written, runStart, block.length);
    if (last && !full && codes[count - 1] === 1) output[written++] = 10; // as awk: every output line ends
    for (let j = 0; j < i; j++) unique += codes[j] === 1 ? 1 : 0;
    lines += i;
    progress?.lines(i);
    if (written > 0) await write(output.subarray(0, written));
  }, progress);
  progress?.done();
  if (out !== process.stdout) await new Promise((resolve, reject) => out.end((error) => (error ? reject(error) : resolve())));
  if (full) throw fullError('unique lines', unique, sizing, filter);
  if (options.stats) {
    // Each new line is wrongly taken for an earlier one with the false-positive rate at that moment,
    // which only grows as lines are added: the final rate times the unique lines bounds the sum.
    const expectedWrongDrops = unique * filter.expectedFpRate;
    process.stderr.write(
      `${NAME} dedup: ${lines} lines read, ${unique} unique lines written, ${lines - unique} duplicates removed\n` +
      `${NAME} dedup: filter sized for ${sizing.capacity} lines (${sizing.source}), ${filter.subFilterCount} sub-filter(s), ` +
      `${filter.fingerprintBits}-bit fingerprints at first, ${filter.byteLength} bytes, load ${(filter.loadFactor * 100).toFixed(1)}%\n` +
      `${NAME} dedup: expected unique lines wrongly dropped as false positives: at most ${expectedWrongDrops.toPrecision(3)}\n`,
    );
  }
  return 0;
}

async function build(argv) {
  const options = parseArguments('build', argv, {
    '--capacity': 'capacity', '--fp-rate': 'fp-rate', '-o': 'output', '--output': 'output',
    '--progress': '!progress', '--no-progress': '!no-progress',
  });
  if (options.help) return help('build');
  if (!options.output) throw new UsageError('build: -o FILTER is required (where to write the filter)');
  const files = options.files.length > 0 ? options.files : ['-'];
  const fpRate = rate('--fp-rate', options['fp-rate'], BUILD_FP_RATE);
  checkReadable(files);
  const sizing = sizeFor(options, files);
  await ready();
  const filter = makeFilter(sizing, fpRate);
  const progress = makeProgress(options, inputSize(files), 'keys');
  let full = false;
  await forEachBlock(files, (block) => {
    if (full) return;
    const ranges = lineRanges(block);
    const codes = filter.addIfAbsentRanges(block, ranges);
    progress?.lines(ranges.length / 2);
    if (codes.includes(2) || codes.includes(3)) full = true;
  }, progress);
  progress?.done();
  if (full) throw fullError('keys', filter.size, sizing, filter);
  writeFileSync(options.output, filter.export());
  return 0;
}

function loadFilter(path) {
  if (path === undefined) throw new UsageError('a FILTER file is required');
  let bytes;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new InputError(`${path}: ${error.code === 'ENOENT' ? 'no such file' : `cannot read (${error.code ?? error.message})`}`);
  }
  try {
    return CuckooFilter.import(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
  } catch (error) {
    if (error instanceof CuckooFilterError && error.code === 'BAD_FORMAT') {
      throw new InputError(`${path}: ${error.message.replace(/^not a valid cuckoo filter export: /, 'not a valid filter file: ')}`);
    }
    throw error;
  }
}

async function query(argv) {
  const options = parseArguments('query', argv, {});
  if (options.help) return help('query');
  const [path, ...keys] = options.files;
  await ready();
  const filter = owned(loadFilter(path));
  const out = [];
  const answer = (key) => (filter.has(key) ? 'present' : 'absent');
  if (keys.length > 0) {
    for (const key of keys) out.push(`${answer(key)}\t${key}\n`);
    process.stdout.write(out.join(''));
    return keys.length === 1 && !filter.has(keys[0]) ? 1 : 0;
  }
  await forEachLine(['-'], (key) => {
    out.push(Buffer.from(`${answer(key)}\t`), Buffer.from(key), Buffer.from('\n'));
  });
  process.stdout.write(Buffer.concat(out));
  return 0;
}

async function info(argv) {
  const options = parseArguments('info', argv, {});
  if (options.help) return help('info');
  if (options.files.length > 1) throw new UsageError('info: one FILTER at a time');
  await ready();
  const filter = owned(loadFilter(options.files[0]));
  const lines = [
    ['file', options.files[0]],
    ['items', filter.size],
    ['capacity', filter.capacity],
    ['load', `${(filter.loadFactor * 100).toFixed(2)}%`],
    ['bucket size', filter.bucketSize],
    ['buckets', filter.bucketCount],
    ['fingerprint bits', filter.fingerprintBits],
    ['max kicks', filter.maxKicks],
    ['sub-filters', filter.growth ? `${filter.subFilterCount} (growth ${filter.growth}, at most ${filter.maxSubFilters})` : '1 (no growth)'],
    ['seed', `0x${filter.seed.toString(16)}`],
    ['bytes', filter.byteLength],
    ['bits per item', filter.size > 0 ? ((filter.byteLength * 8) / filter.size).toFixed(2) : 'n/a (empty)'],
    ['expected fp rate', filter.expectedFpRate.toExponential(3)],
  ];
  process.stdout.write(lines.map(([k, v]) => `${k}: ${v}\n`).join(''));
  return 0;
}

function help(command) {
  process.stdout.write(`${HELP[command]}\n`);
  return 0;
}

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    if (command === undefined) {
      process.stderr.write(`${HELP.main}\n`);
      return 2;
    }
    return help(rest[0] && HELP[rest[0]] ? rest[0] : 'main');
  }
  const commands = { dedup, build, query, info };
  if (!Object.hasOwn(commands, command)) throw new UsageError(`unknown command "${command}" (dedup, build, query, info; see ${NAME} --help)`);
  return commands[command](rest);
}

try {
  process.exitCode = await main(process.argv.slice(2));
  for (const filter of ownedFilters) filter.dispose();
} catch (error) {
  if (error?.code === 'EPIPE') {
    process.exitCode = 0; // the reader went away (| head): not an error
  } else {
    const message = error instanceof UsageError || error instanceof InputError || error instanceof CuckooFilterError
      ? error.message
      : `unexpected error: ${error?.message ?? error}`;
    process.stderr.write(`${NAME}: ${message}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  }
}
