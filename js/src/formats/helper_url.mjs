// The ES module build's generated/helper_url.js (scripts/build.sh copies it there).
export function helperUrl() {
  return new URL('../dedup_worker.js', import.meta.url);
}
