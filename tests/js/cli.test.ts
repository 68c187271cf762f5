// The `cuckoo` command, run for real in a child process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, rng } from './helpers';

const bin = join(repoRoot, 'js', 'bin', 'cuckoo.mjs');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cuckoo-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], input?: string | Buffer) {
  const result = spawnSync('node', [bin, ...args], { cwd: dir, input, maxBuffer: 1 << 28 });
  const stderr = result.stderr.toString();
  // Whatever happens, never a stack trace.
  expect(stderr).not.toMatch(/^\s+at /m);
  return { code: result.status, stdout: result.stdout as Buffer, stderr };
}

function awkDedup(file: string): Buffer {
  const result = spawnSync('awk', ['!seen[$0]++', file], { env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 1 << 28 });
  return result.stdout;
}

// Lines with known duplicates: `distinct` different lines, `total` lines in all, some non-ASCII and
// some bytes that are not UTF-8 at all.
function generate(name: string, total: number, distinct: number, seed: number): string {
  const random = rng(seed);
  const parts: Buffer[] = [];
  for (let i = 0; i < total; i++) {
    const n = Math.floor(random() * distinct);
    if (n % 13 === 0) parts.push(Buffer.from([0x6c, 0xff, 0xfe, 0x30 + (n % 10)]), Buffer.from(`-${n}\n`));
    else parts.push(Buffer.from(n % 7 === 0 ? `zeile-ü-${n}\n` : `line-${n}\n`));
  }
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat(parts));
  return path;
}

describe('dedup', () => {
  test('equals awk \'!seen[$0]++\' on a file with known duplicates', () => {
    const file = generate('big.txt', 200_000, 100_000, 1);
    const expected = awkDedup(file);
    const { code, stdout, stderr } = run(['dedup', '--fp-rate', '1e-8', file]);
    expect(code).toBe(0);
    expect(stderr).toBe(''); // not a terminal, no --stats: nothing on standard error
    expect(stdout.equals(expected)).toBe(true);
    expect(stdout.toString().split('\n').length - 1).toBeGreaterThan(80_000);
  });

  test('several files and standard input, in order', () => {
    const a = generate('a.txt', 5000, 3000, 2);
    const b = generate('b.txt', 5000, 3000, 3);
    const both = join(dir, 'ab.txt');
    writeFileSync(both, Buffer.concat([readFileSync(a), readFileSync(b), readFileSync(a)]));
    const { code, stdout } = run(['dedup', '--fp-rate', '1e-8', a, '-', a], readFileSync(b));
    expect(code).toBe(0);
    expect(stdout.equals(awkDedup(both))).toBe(true);
  });

  test('reads standard input when no file is given', () => {
    const { code, stdout } = run(['dedup'], 'x\ny\nx\nz\ny\n');
    expect(code).toBe(0);
    expect(stdout.toString()).toBe('x\ny\nz\n');
  });

  test('CRLF lines equal their LF twins and keep their own ending; a last line without newline gets one', () => {
    const file = join(dir, 'crlf.txt');
    writeFileSync(file, 'a\r\nb\na\nc\r\nb\r\nlast');
    const { code, stdout } = run(['dedup', file]);
    expect(code).toBe(0);
    expect(stdout.toString()).toBe('a\r\nb\nc\r\nlast\n');
  });

  test('empty lines and an empty file', () => {
    const file = join(dir, 'blank.txt');
    writeFileSync(file, '\n\nx\n\n');
    expect(run(['dedup', file]).stdout.toString()).toBe('\nx\n');
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '');
    const { code, stdout } = run(['dedup', empty]);
    expect(code).toBe(0);
    expect(stdout.length).toBe(0);
  });

  test('--stats reports counts and the expected false drops', () => {
    const file = generate('stats.txt', 10_000, 4000, 4);
    const unique = awkDedup(file).toString().split('\n').length - 1;
    const { code, stderr } = run(['dedup', '--stats', file]);
    expect(code).toBe(0);
    expect(stderr).toContain(`10000 lines read, ${unique} unique lines written, ${10_000 - unique} duplicates removed`);
    expect(stderr).toMatch(/expected unique lines wrongly dropped as false positives: at most [0-9.e-]+/);
  });

  test('--progress shows lines/s, percent and ETA on standard error; --no-progress nothing', () => {
    const file = generate('progress.txt', 50_000, 10_000, 6);
    const { code, stderr, stdout } = run(['dedup', '--progress', file]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/cuckoo: [\d,]+ lines, [\d,]+ lines\/s, 100\.0%, ETA 0s\n$/);
    expect(stdout.equals(awkDedup(file))).toBe(true);
    expect(run(['dedup', '--no-progress', file]).stderr).toBe('');
  });

  test('-o writes to a file', () => {
    const out = join(dir, 'out.txt');
    expect(run(['dedup', '-o', out], 'q\nq\nr\n').code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('q\nr\n');
  });

  test('the filter grows past its starting size (standard input, or a small --capacity)', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `u${i % 15_000}`).join('\n');
    const { code, stdout, stderr } = run(['dedup', '--capacity', '100', '--stats'], lines);
    expect(code).toBe(0);
    expect(stdout.toString().split('\n').length - 1).toBe(15_000);
    expect(stderr).toMatch(/filter sized for 100 lines \(given\), \d+ sub-filter\(s\)/);
  });
});

describe('build, query, info', () => {
  test('round trip', () => {
    const keys = join(dir, 'keys.txt');
    writeFileSync(keys, Array.from({ length: 5000 }, (_, i) => `key-${i}`).join('\n') + '\nkey-1\n');
    const filter = join(dir, 'keys.cuckoo');
    expect(run(['build', keys, '-o', filter, '--fp-rate', '0.0001'])).toMatchObject({ code: 0, stderr: '' });

    const present = run(['query', filter, 'key-42']);
    expect(present.code).toBe(0);
    expect(present.stdout.toString()).toBe('present\tkey-42\n');
    const absent = run(['query', filter, 'not-a-key']);
    expect(absent.code).toBe(1);
    expect(absent.stdout.toString()).toBe('absent\tnot-a-key\n');
    const several = run(['query', filter, 'key-1', 'nope']);
    expect(several.code).toBe(0);
    expect(several.stdout.toString()).toBe('present\tkey-1\nabsent\tnope\n');
    const fromStdin = run(['query', filter], 'key-0\r\nkey-4999\nmissing');
    expect(fromStdin.stdout.toString()).toBe('present\tkey-0\npresent\tkey-4999\nabsent\tmissing\n');

    const described = run(['info', filter]);
    expect(described.code).toBe(0);
    const text = described.stdout.toString();
    expect(text).toContain('items: 5000\n'); // the duplicate key-1 is stored once
    expect(text).toMatch(/fingerprint bits: 18\n/); // growth spends half of 1e-4 on the first sub-filter
    expect(text).toMatch(/sub-filters: 1 \(growth 2, at most \d+\)\n/);
    expect(text).toMatch(/bits per item: [\d.]+\n/);
    expect(text).toMatch(/expected fp rate: [\d.e-]+\n/);
  });
});

describe('errors: one line on standard error, non-zero exit', () => {
  const cases: Array<[string, string[], number, RegExp]> = [
    ['no command', [], 2, /usage: cuckoo <command>/],
    ['unknown command', ['frobnicate'], 2, /^cuckoo: unknown command "frobnicate"/],
    ['unknown option', ['dedup', '--bogus'], 2, /^cuckoo: dedup: unknown option --bogus\n$/],
    ['missing value', ['dedup', '--capacity'], 2, /^cuckoo: dedup: --capacity needs a value\n$/],
    ['bad capacity', ['dedup', '--capacity', 'lots'], 2, /^cuckoo: --capacity must be a whole number >= 1, got "lots"\n$/],
    ['zero capacity', ['dedup', '--capacity', '0'], 2, /--capacity must be a whole number >= 1/],
    ['bad rate', ['dedup', '--fp-rate', '0'], 2, /^cuckoo: --fp-rate must be a number greater than 0 and less than 1, got "0"\n$/],
    ['missing file', ['dedup', 'no-such-file.txt'], 1, /^cuckoo: no-such-file.txt: no such file\n$/],
    ['a directory', ['dedup', '.'], 1, /^cuckoo: \.: is a directory\n$/],
    ['build without -o', ['build', 'x'], 2, /^cuckoo: build: -o FILTER is required/],
    ['query without filter', ['query'], 2, /^cuckoo: a FILTER file is required\n$/],
    ['missing filter file', ['info', 'none.cuckoo'], 1, /^cuckoo: none.cuckoo: no such file\n$/],
  ];
  test.each(cases)('%s', (_name, args, code, message) => {
    const result = run(args);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });

  test('unreadable and corrupted filter files', () => {
    const good = join(dir, 'good.cuckoo');
    expect(run(['build', '-o', good], 'a\nb\n').code).toBe(0);
    const bytes = readFileSync(good);
    const truncated = join(dir, 'truncated.cuckoo');
    writeFileSync(truncated, bytes.subarray(0, bytes.length - 3));
    const flipped = join(dir, 'flipped.cuckoo');
    const damaged = Buffer.from(bytes);
    damaged[damaged.length - 20] ^= 4; // inside the table
    writeFileSync(flipped, damaged);
    expect(run(['info', truncated])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^cuckoo: .*truncated.cuckoo: not a valid filter file: truncated/) });
    expect(run(['query', flipped, 'a'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/not a valid filter file: checksum mismatch/) });
    const folder = join(dir, 'folder.cuckoo');
    mkdirSync(folder);
    expect(run(['info', folder])).toMatchObject({ code: 1, stderr: expect.stringMatching(/folder.cuckoo: cannot read \(EISDIR\)/) });
  });
});

test.each(['dedup', 'build', 'query', 'info'])('%s --help', (command) => {
  const { code, stdout } = run([command, '--help']);
  expect(code).toBe(0);
  expect(stdout.toString()).toMatch(new RegExp(`^usage: cuckoo ${command}`));
});
