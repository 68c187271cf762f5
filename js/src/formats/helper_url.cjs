// The CommonJS build's generated/helper_url.js (scripts/build.sh copies it there).
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

exports.helperUrl = () => pathToFileURL(join(__dirname, '..', 'dedup_worker.js'));
