// Writes the seed corpora of the fuzz targets into the folder given as argv[2]: the golden exports (and
// their truncations) for fuzz_deserialize, a few operation sequences for fuzz_operations.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const out = process.argv[2];
const vectors = JSON.parse(readFileSync(join(fileURLToPath(import.meta.url), '..', '..', 'vectors', 'golden.json'), 'utf8'));
mkdirSync(join(out, 'deserialize'), { recursive: true });
mkdirSync(join(out, 'operations'), { recursive: true });
[...vectors.filters, ...vectors.in_place].forEach((filter, i) => {
  const bytes = Buffer.from(filter.export_hex, 'hex');
  // The first byte is the harness's switch (odd: re-seal the checksum), then the export.
  writeFileSync(join(out, 'deserialize', `golden-${i}`), Buffer.concat([Buffer.from([0]), bytes]));
  writeFileSync(join(out, 'deserialize', `golden-${i}-resealed`), Buffer.concat([Buffer.from([1]), bytes]));
  writeFileSync(join(out, 'deserialize', `golden-${i}-header`), Buffer.concat([Buffer.from([1]), bytes.subarray(0, bytes[4] >= 5 ? 64 : 56)]));
});
const ops = (b, f, capacity, kicks, pairs) => Buffer.from([b, f, capacity, kicks, ...pairs.flat()]);
const fill = Array.from({ length: 120 }, (_, i) => [0, i % 64]);
const churn = Array.from({ length: 200 }, (_, i) => [i % 4, (i * 7) % 64]);
writeFileSync(join(out, 'operations', 'fill-small'), ops(1, 8, 10, 20, fill));
writeFileSync(join(out, 'operations', 'churn'), ops(0, 4, 30, 100, churn));
writeFileSync(join(out, 'operations', 'duplicates'), ops(2, 28, 200, 255, Array.from({ length: 40 }, () => [0, 5])));
// Op bytes with bit 7 set are batches of 1 + bits 2-4 keys: adds (op 0) and lookups (op 2), mixed with
// single removes, filling a small table past its capacity, then the same on a growing chain.
const batch = (op, n) => 0x80 | ((n - 1) << 2) | op;
const batches = Array.from({ length: 60 }, (_, i) => [i % 5 === 4 ? 1 : batch(i % 3 === 2 ? 2 : 0, 1 + (i % 8)), (i * 5) % 64]);
writeFileSync(join(out, 'operations', 'batches'), ops(1, 7, 20, 30, batches));
writeFileSync(join(out, 'operations', 'batches-growth'), ops(0x81, 6, 4, 10, batches.filter(([op]) => op !== 1)));
writeFileSync(join(out, 'operations', 'growth'), ops(0x81, 8, 4, 20, Array.from({ length: 150 }, (_, i) => [i % 3 === 0 ? 2 : 0, i % 64])));
// Regressions: inputs that once failed. A table that doubles in place, max kicks 1, a key copied many
// times: an add doubled the table to its limit and failed, leaving it doubled (2026-11-26).
writeFileSync(join(out, 'operations', 'regression-failed-add-doubled'), Buffer.from('oAIBAQB//dyLWhgxGCAYAQsCFgMhACwBNyDIAw0AGAEjAi4DOc0gyAEPAhoDJQAwATsgyAMRABwBJwIyAz0gyAETAh4DKQA0AT8gyAMVACABKwI2AwEgyAEXAiIDLQA4AQMgyAMZACQBLwI6AwUgyAH//////////////////////////////////////////////xsCJgMxADwBByDIAx0AKAEzAj4DCSDIAR8CKgM1AAD//3793ItaHwE3AgIDDSDIASMCLgM5AAQBDyDIAyUAMAE7AgYRAyDIAScCMgPIARcCIgMtADgBAyDIAxkAJAEvAjoDBSDIAf//////////////////////////////////////////////GwImAzEAPAEHIMgDHQAoATMCPgMJIMgBHwIqAzUAPQAIARMgyAMpADQBPwIKAxUgAAAAOsgBKwI2AwEADAEXIAUABQAFAAUABQAFAAIAAAAFAAUABQAFAAUABQAFAzEAPAEHAhID/x0=', 'base64'));
// Byte 0 bit 6: semi-sorted buckets (b = 4; byte 1 gives 5 + byte 1 % 28 bits): churn, batches, growth.
writeFileSync(join(out, 'operations', 'semi-sorted-churn'), ops(0x40, 8, 30, 100, churn));
writeFileSync(join(out, 'operations', 'semi-sorted-batches'), ops(0x40, 12, 20, 30, batches));
writeFileSync(join(out, 'operations', 'semi-sorted-growth'), ops(0xC0, 20, 4, 20, Array.from({ length: 150 }, (_, i) => [i % 3 === 0 ? 2 : 0, i % 64])));
// Growth in place (byte 0: 0xA0; byte 1 odd: 32-bit slots): bulk adds (op 0x20) that double the table,
// mixed with removes, lookups, counts and batches.
const inPlace = Array.from({ length: 120 }, (_, i) => (i % 6 === 0 ? [0x20, 200] : [i % 4, (i * 11) % 64]));
writeFileSync(join(out, 'operations', 'in-place-16'), ops(0xA0, 2, 1, 50, inPlace));
writeFileSync(join(out, 'operations', 'in-place-32'), ops(0xA0, 3, 1, 50, inPlace));
writeFileSync(join(out, 'operations', 'in-place-batches'), ops(0xA0, 4, 1, 20, [...inPlace.slice(0, 30), ...batches]));
// Slots that widen at the first doubling (byte 1: 5, 16 to 20 bits; 6, 20 to 24).
writeFileSync(join(out, 'operations', 'in-place-widen-16'), ops(0xA0, 5, 1, 50, inPlace));
writeFileSync(join(out, 'operations', 'in-place-widen-20'), ops(0xA0, 6, 1, 20, [...inPlace.slice(0, 30), ...batches]));
