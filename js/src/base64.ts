// Base64 (RFC 4648, with padding) for toJSON()/fromJSON(), written out because browsers have no Buffer
// and btoa() needs a binary string as large as the data.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

export function base64Encode(bytes: Uint8Array): string {
  const parts: string[] = [];
  // Pieces of 3 x 16384 bytes keep String.fromCharCode's argument list short.
  for (let start = 0; start < bytes.length; start += 3 * 16384) {
    const end = Math.min(bytes.length, start + 3 * 16384);
    const codes: number[] = [];
    for (let i = start; i < end; i += 3) {
      const n = (bytes[i] << 16) | ((i + 1 < end ? bytes[i + 1] : 0) << 8) | (i + 2 < end ? bytes[i + 2] : 0);
      codes.push(
        ALPHABET.charCodeAt(n >> 18),
        ALPHABET.charCodeAt((n >> 12) & 63),
        i + 1 < end ? ALPHABET.charCodeAt((n >> 6) & 63) : 61,
        i + 2 < end ? ALPHABET.charCodeAt(n & 63) : 61,
      );
    }
    parts.push(String.fromCharCode(...codes));
  }
  return parts.join('');
}

/** The bytes of a padded base64 string, or undefined if it is not one. */
export function base64Decode(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0) return undefined;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    let n = 0;
    for (let k = 0; k < 4; k++) {
      const c = text.charCodeAt(i + k);
      const last = i + 4 === text.length;
      if (c === 61 && last && k >= 4 - padding) {
        n <<= 6;
        continue;
      }
      const v = c < 128 ? VALUES[c] : -1;
      if (v < 0) return undefined;
      n = (n << 6) | v;
    }
    if (o < out.length) out[o++] = n >> 16;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}
