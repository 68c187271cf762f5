// Inputs for the line deduplicator, shared by its property test, the command's tests and the dedup page's
// browser test, with the reference: the documented line rules (docs/DEDUP.md) applied with an exact set.
import { rng } from './helpers';

export interface DedupCase {
  name: string;
  input: Buffer;
}

/**
 * The reference deduplication: a line ends at "\n"; its key drops the "\n" and a "\r" before it; the last
 * piece without "\n" is a line (its key drops one trailing "\r") and is written with "\n" added.
 */
/**
 * A record's key made of fields (the engine's documented rules): ranges [first, last], last 0 open. A
 * closed range's fields past the record's last are empty; an open one covers the fields the record has.
 */
export function fieldKey(record: string, delimiter: string, ranges: [number, number][]): string {
  const fields = record.split(delimiter);
  const picked: string[] = [];
  const wanted = new Set<number>();
  for (const [first, last] of ranges) {
    const end = last === 0 ? fields.length : last;
    for (let i = first; i <= end; i++) wanted.add(i);
  }
  for (const i of [...wanted].sort((a, b) => a - b)) picked.push(fields[i - 1] ?? '');
  return picked.join(delimiter);
}

export function referenceDedup(
  input: Buffer,
  rules: {
    zeroTerminated?: boolean;
    duplicates?: boolean;
    fields?: [number, number][];
    delimiter?: string;
    window?: number;
  } = {},
): Buffer {
  // With zeroTerminated a record ends at NUL and "\r" is data; with duplicates the seen ones are written.
  // With a window, only the last `window` new keys are remembered (a FIFO of them beside the set).
  const endByte = rules.zeroTerminated ? 0 : 10;
  const seen = new Set<string>();
  const order: string[] = [];
  let oldest = 0;
  const out: Buffer[] = [];
  for (let start = 0; start < input.length; ) {
    const newline = input.indexOf(endByte, start);
    const end = newline === -1 ? input.length : newline + 1;
    const line = input.subarray(start, end);
    let stop = newline === -1 ? line.length : line.length - 1;
    if (!rules.zeroTerminated && stop > 0 && line[stop - 1] === 13) stop--;
    const whole = line.subarray(0, stop).toString('latin1');
    const key = rules.fields ? fieldKey(whole, rules.delimiter ?? '\t', rules.fields) : whole;
    const isNew = !seen.has(key);
    seen.add(key);
    if (isNew && rules.window !== undefined) {
      order.push(key);
      if (order.length - oldest > rules.window) seen.delete(order[oldest++]);
    }
    if (isNew !== Boolean(rules.duplicates)) {
      out.push(line);
      if (newline === -1) out.push(Buffer.from([endByte]));
    }
    start = end;
  }
  return Buffer.concat(out);
}

/** Random lines: lengths from 0 to `maxLine` bytes, LF/CRLF endings, lone CRs, repeats, and a last line with or without "\n". */
export function randomInput(seed: number, lines: number, maxLine: number): Buffer {
  const random = rng(seed);
  const pool: Buffer[] = [];
  const parts: Buffer[] = [];
  for (let i = 0; i < lines; i++) {
    let line: Buffer;
    if (pool.length > 0 && random() < 0.4) {
      line = pool[Math.floor(random() * pool.length)];
    } else {
      // Mostly short lines, some long ones, a few up to maxLine.
      const r = random();
      const length =
        r < 0.8 ? Math.floor(random() * 40) : r < 0.97 ? Math.floor(random() * 4000) : Math.floor(random() * maxLine);
      // Random bytes (lone CRs and non-ASCII among them); a long line repeats a random 4 KiB pattern and
      // ends with random bytes of its own, so that it is distinct.
      const pattern = Buffer.alloc(Math.min(length, 4096));
      for (let j = 0; j < pattern.length; j++) pattern[j] = random() < 0.02 ? 13 : 32 + Math.floor(random() * 200);
      line = Buffer.alloc(length);
      for (let j = 0; j < length; j += pattern.length) pattern.copy(line, j);
      for (let j = Math.max(0, length - 16); j < length; j++) line[j] = 32 + Math.floor(random() * 200);
      pool.push(line);
    }
    const ending = random() < 0.3 ? '\r\n' : '\n';
    parts.push(line, Buffer.from(i === lines - 1 && random() < 0.5 ? '' : ending));
  }
  return Buffer.concat(parts);
}

export function dedupCases(): DedupCase[] {
  return [
    { name: 'empty', input: Buffer.alloc(0) },
    { name: 'only newlines', input: Buffer.from('\n\n\n') },
    { name: 'CRLF twins, a last line without newline', input: Buffer.from('a\r\nb\na\nc\r\nb\r\nlast') },
    { name: 'a last line ending in CR', input: Buffer.from('x\nx\r') },
    { name: 'lone CRs are bytes', input: Buffer.from('a\rb\na\rb\r\nab\n\r\n\n') },
    { name: 'non-UTF-8 bytes', input: Buffer.from([0x6c, 0xff, 0xfe, 10, 0x6c, 0xff, 0xfe, 13, 10, 0xc3, 0x28, 10]) },
    { name: 'NUL bytes', input: Buffer.from('a\0b\na\0b\n\0\n') },
    { name: 'random lines up to 64 KiB', input: randomInput(7, 3000, 1 << 16) },
    { name: 'random lines up to 1 MiB', input: randomInput(8, 300, 1 << 20) },
  ];
}

/**
 * CSV records as Python's csv module reads them (default dialect, strict off), one character at a time,
 * written here independently of the engine: each record's raw bytes (its end included) and its fields.
 * A record ends at "\n" outside quotes; a "\r" before it is dropped; an empty record has no fields.
 */
export function parseCsv(input: string, delimiter = ','): { raw: string; fields: string[] }[] {
  const records: { raw: string; fields: string[] }[] = [];
  let state: 'start' | 'unquoted' | 'quoted' | 'quoteInQuoted' = 'start';
  let fields: string[] = [];
  let field = '';
  let recordStart = 0;
  const finish = (end: number) => {
    const raw = input.slice(recordStart, end);
    const content = raw.replace(/\r?\n$/, '');
    if (content !== '') fields.push(state === 'quoted' ? field : field.replace(/\r$/, ''));
    records.push({ raw, fields });
    fields = [];
    field = '';
    state = 'start';
    recordStart = end;
  };
  for (let i = 0; i < input.length; i++) {
    const c = input[i];
    if (state === 'quoted') {
      if (c === '"') state = 'quoteInQuoted';
      else field += c;
    } else if (c === '\n') {
      finish(i + 1);
    } else if (c === '"' && state === 'start') {
      state = 'quoted';
    } else if (c === '"' && state === 'quoteInQuoted') {
      field += '"';
      state = 'quoted';
    } else if (c === delimiter) {
      fields.push(field);
      field = '';
      state = 'start';
    } else {
      field += c;
      state = 'unquoted';
    }
  }
  if (recordStart < input.length) finish(input.length);
  return records;
}

/**
 * The documented CSV rules with an exact set: the header written; each later record whose selected values
 * (1-based columns, missing ones empty; all its fields without `columns`) were not seen, with "\n" added
 * to a last record without one.
 */
export function referenceCsvDedup(input: Buffer, columns?: number[], delimiter = ','): Buffer {
  const seen = new Set<string>();
  let out = '';
  parseCsv(input.toString('latin1'), delimiter).forEach(({ raw, fields }, i) => {
    const written = raw.endsWith('\n') ? raw : `${raw}\n`;
    const key = JSON.stringify(columns ? columns.map((c) => fields[c - 1] ?? '') : fields);
    if (i === 0)
      out += written; // the header: written, never a key
    else if (!seen.has(key)) out += written;
    if (i > 0) seen.add(key);
  });
  return Buffer.from(out, 'latin1');
}

/**
 * Random CSV: a header "id,name,city,note", then records of 0 to 5 fields drawn from values with commas,
 * quotes, newlines and CRLFs inside (quoted as a writer would, and some plain values quoted anyway), LF or
 * CRLF endings, and a last record with or without one.
 */
export function randomCsv(seed: number, records: number, delimiter = ','): Buffer {
  const random = rng(seed);
  const values = ['a', 'b', '', 'a,b', 'a;b', 'say "hi"', 'two\nlines', 'crlf\r\nin', '"', ' a', 'ü', 'x'.repeat(300)];
  let out = ['id', 'name', 'city', 'note'].join(delimiter) + '\n';
  for (let i = 0; i < records; i++) {
    const n = Math.floor(random() * 6);
    const fields: string[] = [];
    for (let f = 0; f < n; f++) {
      const v = values[Math.floor(random() * values.length)];
      const mustQuote = v.includes(delimiter) || /["\r\n]/.test(v) || (v === '' && n === 1);
      fields.push(mustQuote || random() < 0.2 ? `"${v.replace(/"/g, '""')}"` : v);
    }
    out += fields.join(delimiter);
    if (i + 1 < records || random() < 0.5) out += random() < 0.2 ? '\r\n' : '\n';
  }
  return Buffer.from(out, 'utf8');
}
