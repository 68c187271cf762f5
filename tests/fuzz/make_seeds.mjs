// Writes the seed corpora of the fuzz targets into the folder given as argv[2]: the golden exports (and
// their truncations) for fuzz_deserialize, a few operation sequences for fuzz_operations.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const out = process.argv[2];
const vectors = JSON.parse(readFileSync(join(fileURLToPath(import.meta.url), '..', '..', 'vectors', 'golden.json'), 'utf8'));
mkdirSync(join(out, 'deserialize'), { recursive: true });
mkdirSync(join(out, 'operations'), { recursive: true });
vectors.filters.forEach((filter, i) => {
  const bytes = Buffer.from(filter.export_hex, 'hex');
  // The first byte is the harness's switch (odd: re-seal the checksum), then the export.
  writeFileSync(join(out, 'deserialize', `golden-${i}`), Buffer.concat([Buffer.from([0]), bytes]));
  writeFileSync(join(out, 'deserialize', `golden-${i}-resealed`), Buffer.concat([Buffer.from([1]), bytes]));
  writeFileSync(join(out, 'deserialize', `golden-${i}-header`), Buffer.concat([Buffer.from([1]), bytes.subarray(0, 56)]));
});
const ops = (b, f, capacity, kicks, pairs) => Buffer.from([b, f, capacity, kicks, ...pairs.flat()]);
const fill = Array.from({ length: 120 }, (_, i) => [0, i % 64]);
const churn = Array.from({ length: 200 }, (_, i) => [i % 4, (i * 7) % 64]);
writeFileSync(join(out, 'operations', 'fill-small'), ops(1, 8, 10, 20, fill));
writeFileSync(join(out, 'operations', 'churn'), ops(0, 4, 30, 100, churn));
writeFileSync(join(out, 'operations', 'duplicates'), ops(2, 28, 200, 255, Array.from({ length: 40 }, () => [0, 5])));
writeFileSync(join(out, 'operations', 'growth'), ops(0x81, 8, 4, 20, Array.from({ length: 150 }, (_, i) => [i % 3 === 0 ? 2 : 0, i % 64])));
