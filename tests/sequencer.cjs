// Jest's order of the suites on the two workers: the longest first, so that both end together. Jest orders
// them by the times it recorded in its last run on this machine (failed suites first), and a suite without
// one by its file's size, before those with one: on a fresh clone (CI) model.test.ts (42 s, a small file)
// then started last and ran alone for 40 s (2026-11-30). Here a suite without a recorded time has one from
// the table below, and Jest's own order does the rest.
const { relative } = require('node:path');
const { statSync } = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;

// Seconds each suite took in a fresh clone's `npm test` on the 2-core machine (2026-11-30); a suite not
// named here (each took under 10 s) is given one from its size, about 2,000 bytes a second.
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
  'tests/js/golden.test.ts': 18,
  'tests/e2e/firefox.test.ts': 16,
  'tests/js/promises.test.ts': 14,
};

class LongestFirst extends Sequencer {
  // Milliseconds, as Jest records them.
  time(test) {
    const recorded = super.time(test);
    if (recorded !== undefined) return recorded;
    const seconds = SECONDS[relative(test.context.config.rootDir, test.path)] ?? statSync(test.path).size / 2000;
    return seconds * 1000;
  }
}

module.exports = LongestFirst;
