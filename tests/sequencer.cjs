// Jest's order of the suites on the two workers: the longest first, so that both end together. Jest's own
// order uses the times of the last run on this machine, and without them (a fresh clone, CI) the files'
// sizes: then model.test.ts (42 s, a small file) started last and ran alone for 40 s (2026-11-30).
const { statSync } = require('node:fs');
const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

// Seconds each suite took in a fresh clone's `npm test` on the 2-core machine (2026-11-30); a suite not
// named here is placed by its size (about 2,000 bytes a second).
const SECONDS = {
  'tests/js/cli.test.ts': 317,
  'tests/e2e/demo.test.ts': 261,
  'tests/e2e/dedup.test.ts': 75,
  'tests/js/package.test.ts': 75,
  'tests/e2e/page_text.test.ts': 70,
  'tests/js/memory.test.ts': 61,
  'tests/js/model.test.ts': 42,
  'tests/js/dedup.test.ts': 41,
  'tests/js/lite.test.ts': 32,
  'tests/e2e/lesson.test.ts': 29,
  'tests/js/growth.test.ts': 20,
  'tests/e2e/firefox.test.ts': 16,
  'tests/js/golden.test.ts': 14,
  'tests/js/promises.test.ts': 14,
};

class LongestFirst extends Sequencer {
  sort(tests) {
    const seconds = (test) =>
      SECONDS[relative(test.context.config.rootDir, test.path)] ?? statSync(test.path).size / 2000;
    return [...tests].sort((a, b) => seconds(b) - seconds(a));
  }
}

module.exports = LongestFirst;
