/**
 * The lines of a block of text as (start, end) byte ranges, each line without its "\n" or "\r\n": the
 * shape addIfAbsentRanges() takes. A final piece without "\n" counts as a line. Line i, with its ending,
 * spans [ranges[2i], ranges[2i + 2]) (the block's end for the last line).
 */
export function lineRanges(bytes: Uint8Array): Uint32Array {
  let count = 0;
  let ranges = new Uint32Array(64);
  const push = (start: number, end: number) => {
    if (2 * count + 2 > ranges.length) {
      const grown = new Uint32Array(ranges.length * 2);
      grown.set(ranges);
      ranges = grown;
    }
    ranges[2 * count] = start;
    ranges[2 * count + 1] = end;
    count++;
  };
  let start = 0;
  for (let newline = bytes.indexOf(10); newline !== -1; newline = bytes.indexOf(10, start)) {
    push(start, newline > start && bytes[newline - 1] === 13 ? newline - 1 : newline);
    start = newline + 1;
  }
  if (start < bytes.length) push(start, bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length);
  return ranges.subarray(0, 2 * count);
}
