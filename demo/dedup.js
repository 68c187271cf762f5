// The dedup page's main thread: it hands the files to the worker and shows what it reports, so the page
// stays responsive whatever the files' size. It also keeps the remembered filter (IndexedDB) and asks for
// the output file where the browser can write one as the run goes.
/**
 * The element of the page's own markup with this id (it exists). Typed as a form control, which most of
 * them are; other kinds are cast where they are used.
 * @param {string} id
 * @returns {HTMLInputElement}
 */
const $ = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
const number = (n) => n.toLocaleString('en');
const progressBar = /** @type {HTMLProgressElement} */ (document.getElementById('dedup-progress'));
const link = /** @type {HTMLAnchorElement} */ (document.getElementById('dedup-download'));
const fileList = /** @type {HTMLOListElement} */ (document.getElementById('file-list'));

/**
 * The run in progress: its worker, whether Cancel was asked, and while it remembers lines, how it gives
 * back the lock of those runs (release) or stops asking for it (abort).
 * @type {{ worker: Worker | undefined, cancelled: boolean, timer: any, stopped: boolean, release?: () => void,
 *   abort: AbortController } | undefined}
 */
let run;
let downloadUrl;
/** The files of the latest run, in the order they are read (the list can reorder them for the next). */
let chosen = [];
/** The file the next run writes as it goes (showSaveFilePicker), if one was chosen. */
let saveHandle;
/** What is remembered in this browser (the record's description, not its bytes), if anything. */
let remembered;

const plural = (n, one, many = `${one}s`) => `${number(n)} ${n === 1 ? one : many}`;

/** A number for a sentence, to two significant figures: 2.4, 17,000, 17 million, 2.6 billion. */
function about(x) {
  for (const [size, word] of /** @type {[number, string][]} */ ([[1e12, 'trillion'], [1e9, 'billion'], [1e6, 'million']])) {
    if (x >= size) return `${Number((x / size).toPrecision(2)).toLocaleString('en')} ${word}`;
  }
  return Number(x.toPrecision(2)).toLocaleString('en');
}

/**
 * The loss budget in words. wrongDropBound bounds the expected number of unique lines wrongly dropped;
 * the chance that any was dropped is at most that number, so below 1 it reads as a chance.
 */
function dropChance(bound, unique, lines, unit = 'line') {
  if (lines === 0) return `No ${unit}s, so none could be dropped.`;
  // Only with remembered lines: every line was taken for one seen before.
  if (unique === 0) {
    return lines === 1
      ? `The one ${unit} had been seen before, in an earlier run: it was not new.`
      : `All ${plural(lines, unit)} had been seen before, in earlier runs or earlier in this one: none was new.`;
  }
  if (bound >= 1) {
    return `Up to about ${about(bound)} of the ${plural(unique, `unique ${unit}`)} may have been wrongly dropped (expected): ` +
      'a smaller false-positive rate makes that rarer.';
  }
  const which = unique === 1 ? `the one unique ${unit}` : `any of the ${plural(unique, `unique ${unit}`)}`;
  return `At most about a 1 in ${about(1 / bound)} chance that ${which} was wrongly dropped.`;
}

// Bytes per line of a few lines are the size of an empty table over a handful: no measure of anything.
const PER_LINE_FROM = 10_000;

/**
 * What the filter took: its size (the engine's filterBytes, the one figure of it the page shows), what it
 * was sized for, and from PER_LINE_FROM lines up, bytes per line read and per unique line.
 */
function filterSummary(data, unit = 'line') {
  const per = (n) => (data.filterBytes / n).toLocaleString('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const shape = data.doublings > 0
    ? `${data.fingerprintBits}-bit slots, doubled ${data.doublings === 1 ? 'once' : `${data.doublings} times`} in place`
    : `${data.fingerprintBits}-bit slots`;
  const kept = data.remember ? ' It is kept in this browser for the next run.' : '';
  if (data.rememberedBefore !== undefined) {
    return `The remembered filter (${plural(data.filterBytes, 'byte')}, ${shape}), which held ${plural(data.rememberedBefore, unit)} from earlier runs, ` +
      `now holds ${plural(data.rememberedAfter, unit)}.${kept}`;
  }
  if (data.filterBytes === 0) return 'The input is empty: there was nothing to remember, so no filter was made.';
  const costs = data.lines >= PER_LINE_FROM && data.unique > 0
    ? ` it costs ${per(data.lines)} bytes per ${unit} read and ${per(data.unique)} bytes per unique ${unit}.`
    : ` it held ${plural(data.unique, `unique ${unit}`)}.`;
  if (data.threads === 2) {
    const twoShape = data.doublings > 0
      ? `${data.fingerprintBits}-bit slots, the larger doubled ${data.doublings === 1 ? 'once' : `${data.doublings} times`} in place`
      : `${data.fingerprintBits}-bit slots`;
    return `The keys were shared between two filters, one for each thread, which took ${number(data.filterBytes)} bytes ` +
      `together (${twoShape}). They were made when reading began, with room for ${plural(data.capacity, unit)} in all, and ` +
      `their tables double as unique ${unit}s come, so their memory follows them:` +
      costs.replace(' it costs', ' together they cost').replace(' it held', ' together they held') + kept;
  }
  return `The filter took ${number(data.filterBytes)} bytes (${shape}). It was made when reading began, with room for ` +
    `${plural(data.capacity, unit)}, and its table doubles as unique ${unit}s come, so its memory follows them:` + costs + kept;
}

function duration(seconds) {
  if (!Number.isFinite(seconds)) return '–';
  if (seconds < 60) return `${Math.max(0, Math.round(seconds))} s`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

// "names.txt" -> "names.unique.txt"; no extension: "data" -> "data.unique.txt". Several files: "unique"
// with the first one's extension.
function outputName(files) {
  const name = files[0]?.name ?? 'unique.txt';
  const dot = name.lastIndexOf('.');
  if (files.length > 1) return dot > 0 ? `unique${name.slice(dot)}` : 'unique.txt';
  return dot > 0 ? `${name.slice(0, dot)}.unique${name.slice(dot)}` : `${name}.unique.txt`;
}

// --- settings: the keys ---

/**
 * The items of a field list as the engine splits it (LineDeduper's parseFields): at commas, but not at one
 * inside double quotes ("Lie, Ann" is one name); undefined for an unclosed or stray quote.
 * @param {string} list
 * @returns {string[] | undefined}
 */
function fieldItems(list) {
  const items = list.match(/(?:"(?:[^"]|"")*"|[^,"])+|(?<=^|,)(?=,|$)/g) ?? [''];
  return items.join(',') === list ? items : undefined;
}

/** The settings of the keys, as the worker passes them to LineDeduper, and how to say them. */
function keySettings() {
  const csv = $('csv').checked;
  // "name, city" means the columns "name" and "city"; a comma inside double quotes belongs to a name.
  const typedFields = $('key-fields').value;
  const items = fieldItems(typedFields);
  const fields = (items ?? typedFields.split(',')).map((s) => s.trim()).filter((s) => s !== '').join(',');
  const typed = $('delimiter').value;
  // The engine's own defaults: a comma for CSV, a tab for fields (and no delimiter without fields).
  const delimiter = csv ? (typed === '' ? undefined : typed) : fields === '' ? undefined : typed || '\t';
  const used = delimiter ?? (csv ? ',' : undefined);
  const shown = used === '\t' ? 'tab' : `"${used}"`;
  const text = csv
    ? `${fields === '' ? 'all CSV columns' : `CSV column${fields.includes(',') ? 's' : ''} ${fields}`}${used === ',' ? '' : `, split at ${shown}`}`
    : fields === '' ? 'whole lines' : `field${/^\d+$/.test(fields) ? '' : 's'} ${fields} split at ${shown}`;
  // The settings as typed (records of earlier versions of the page hold this); resolveKeys() resolves them.
  const id = JSON.stringify({ csv, fields, delimiter: used ?? null });
  return { csv, fields, delimiter, used, text, id, unit: csv ? 'record' : 'line' };
}

function showKeySettings() {
  const csv = $('csv').checked;
  $('key-fields-label').textContent = csv ? 'Key column(s)' : 'Key field(s)';
  $('key-fields').placeholder = csv ? 'email or 2 or name,city' : '2 or 2,4 or 3-';
  $('delimiter').placeholder = csv ? ',' : 'tab';
  $('keys-hint').textContent = csv
    ? 'Header names or 1-based column numbers, comma separated (email, 2, name,city; a name that is a number or holds a ' +
      'comma in double quotes: "2021"); empty: all columns. Two records ' +
      'are the same when these columns hold the same values, quoted or not. The delimiter is a comma unless given.'
    : 'Empty: whole lines. Otherwise field numbers as for cut (2, 2,4, 2-3, 3-), split at the delimiter ' +
      '(a tab when empty), quotes or not: the line is written whole, and its key is those fields.';
  const unit = csv ? 'record' : 'line';
  const cap = csv ? 'Records' : 'Lines';
  $('lines-label').textContent = `${cap} read`;
  $('unique-label').textContent = `Unique ${unit}s`;
  $('rate-label').textContent = `${cap} per second`;
}

// --- which keys a run makes: a remembered filter fits only runs that make them the same way ---

// The engine's limit on field numbers (js/src/dedup.ts, MAX_FIELD).
const MAX_FIELD = 10_000;

/**
 * The fields a list selects, as the engine resolves them (LineDeduper's parseFields, then the core's
 * header names and merge_fields): ranges [first, last] (last 0: to the record's end), header names
 * replaced by their column numbers (the first column of that name), sorted and merged, so that "email"
 * and "2" of the header "name,email", or "2,4" and "4, 2", are one selection. Undefined where the engine
 * refuses the list or lacks a name: it then stops the run before any line reaches the filter.
 * @param {string} list the items, comma separated, each trimmed
 * @param {number[][] | undefined} header with CSV: the header's fields, decoded, as bytes
 * @returns {number[][] | undefined}
 */
function resolveFields(list, csv, header) {
  /** @type {number[][]} */
  const ranges = [];
  const encoder = new TextEncoder();
  const parts = fieldItems(list);
  if (!parts) return undefined;
  for (const part of parts) {
    const m = /^(\d*)(-?)(\d*)$/.exec(part);
    // A name in double quotes (a column whose name is a number or holds a comma), or a name as it is.
    const quoted = csv && /^"(?:[^"]|"")*"$/.test(part) && part.length > 2;
    if (quoted || (csv && (!m || (m[1] === '' && m[3] === '')) && part !== '' && !part.includes('\0'))) {
      const name = encoder.encode(quoted ? part.slice(1, -1).replace(/""/g, '"') : part);
      const column = (header ?? []).findIndex((cell) => cell.length === name.length && cell.every((b, i) => b === name[i]));
      if (column < 0) return undefined;
      ranges.push([column + 1, column + 1]);
      continue;
    }
    if (!m || (m[1] === '' && m[3] === '')) return undefined;
    const first = m[1] !== '' ? Number(m[1]) : 1;
    const last = m[2] === '' ? first : m[3] !== '' ? Number(m[3]) : 0;
    if (first < 1 || first > MAX_FIELD || last > MAX_FIELD || (m[3] !== '' && last < first)) return undefined;
    ranges.push([first, last]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  /** @type {number[][]} */
  const merged = [];
  for (const [first, last] of ranges) {
    const previous = merged[merged.length - 1];
    if (previous && (previous[1] === 0 || first <= previous[1] + 1)) {
      if (previous[1] !== 0) previous[1] = last === 0 ? 0 : Math.max(previous[1], last);
    } else {
      merged.push([first, last]);
    }
  }
  return merged;
}

/**
 * How a run makes its keys, resolved: two runs with the same identity make the same key of the same
 * record, and the text that says it. With CSV each selected column is its header name (with how many
 * columns of that name come before it), taken in the column order the key has: "email" and "2" of the
 * header "name,email" are one selection, and so is "email" of a file whose header has it third; a number
 * past the header stays a number. Undefined where the engine will refuse the settings (see resolveFields).
 * @param {{ csv: boolean, fields: string, used: string | undefined }} settings
 * @param {number[][] | undefined} header with CSV and fields, the header (csvHeader)
 * @returns {{ id: string, text: string } | undefined}
 */
function resolveKeys({ csv, fields, used }, header) {
  const ranges = fields === '' ? null : resolveFields(fields, csv, header);
  if (ranges === undefined) return undefined;
  const id = (keys) => JSON.stringify({ csv, delimiter: used ?? null, keys });
  if (!csv || !ranges) return { id: id(ranges), text: '' };
  const cells = header ?? [];
  const exact = new TextDecoder('latin1'); // one character per byte: names compared exactly
  const utf8 = new TextDecoder();
  const names = cells.map((cell) => exact.decode(Uint8Array.from(cell)));
  const column = (n) => (n > cells.length ? n : [names[n - 1], names.slice(0, n - 1).filter((x) => x === names[n - 1]).length]);
  const label = (n) => {
    if (n > cells.length || cells[n - 1].length === 0) return `column ${n}`;
    const name = utf8.decode(Uint8Array.from(cells[n - 1]));
    return names.indexOf(names[n - 1]) === names.lastIndexOf(names[n - 1]) ? name : `${name} (column ${n})`;
  };
  const keys = [];
  const labels = [];
  let open = false;
  for (const [first, last] of ranges) {
    if (last === 0) {
      const after = Array.from({ length: Math.max(0, cells.length - first + 1) }, (_, i) => column(first + i));
      keys.push({ from: first, columns: after });
      labels.push(`${label(first)} and those after it`);
      open = true;
    } else {
      for (let n = first; n <= last; n++) {
        keys.push(column(n));
        labels.push(label(n));
      }
    }
  }
  const text = labels.length > 8 ? `CSV columns ${fields}` : `CSV column${labels.length > 1 || open ? 's' : ''} ${labels.join(', ')}`;
  return { id: id(keys), text: `${text}${used === ',' ? '' : `, split at ${used === '\t' ? 'tab' : `"${used}"`}`}` };
}

/** The identity of a remembered record's keys; a record of an earlier page holds its settings as typed. */
function rememberedIdentity(record, header) {
  const stored = JSON.parse(record.keys);
  if (typeof stored.fields !== 'string') return record.keys;
  return resolveKeys({ csv: stored.csv, fields: stored.fields, used: stored.delimiter ?? undefined }, header)?.id ?? record.keys;
}

/**
 * The CSV header: the first record of the first file that has bytes (the engine's header), its fields
 * decoded as the engine decodes them (a byte-order mark before it dropped; a field that starts with a quote
 * is quoted, "" in it is one quote, bytes after its closing quote belong to it; a \r before the record's
 * \n is dropped), as bytes.
 * @param {File[]} files
 * @param {string} delimiter
 * @returns {Promise<number[][]>}
 */
async function csvHeader(files, delimiter) {
  const file = files.find((f) => f.size > 0);
  /** @type {number[][]} */
  const cells = [];
  if (!file) return cells;
  const split = delimiter.charCodeAt(0);
  /** @type {number[]} */
  let cell = [];
  let state = 'start'; // of a field; 'plain' (unquoted); 'quoted'; 'quote' (a quote in a quoted field); 'after' (its closing quote)
  let bareCr = false; // the field's last byte is a \r outside quotes
  let start = true; // a UTF-8 byte-order mark here is not part of the first name
  const end = () => {
    if (bareCr) cell.pop();
    if (cells.length > 0 || cell.length > 0 || state !== 'start') cells.push(cell); // an empty record has no fields
    return cells;
  };
  for (let at = 0; at < file.size; at += 64 << 10) {
    let bytes = new Uint8Array(await file.slice(at, at + (64 << 10)).arrayBuffer());
    if (start && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    start = false;
    for (const b of bytes) {
      if (state === 'quote') {
        if (b === 0x22) {
          cell.push(b);
          state = 'quoted';
          continue;
        }
        state = 'after';
      } else if (state === 'quoted') {
        if (b === 0x22) state = 'quote';
        else cell.push(b);
        continue;
      }
      if (b === 0x0a) return end();
      if (b === split) {
        cells.push(cell);
        cell = [];
        state = 'start';
        bareCr = false;
      } else if (state === 'start' && b === 0x22) {
        state = 'quoted';
      } else {
        if (state === 'start') state = 'plain';
        cell.push(b);
        bareCr = b === 0x0d;
      }
    }
  }
  return end();
}

// --- remembering across visits: one filter in IndexedDB, its description apart so a visit reads only that ---

const DB_NAME = 'cuckoo-wasm-dedup';
const STORE = 'remembered';

/**
 * One transaction on the store; `work` makes its requests and may set the result.
 * @param {IDBTransactionMode} mode
 * @param {(store: IDBObjectStore, set: (value: any) => void) => void} work
 * @returns {Promise<any>}
 */
async function withStore(mode, work) {
  const db = await new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      let result;
      work(tx.objectStore(STORE), (value) => { result = value; });
      tx.oncomplete = () => resolve(result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error('the browser stopped the transaction'));
    });
  } finally {
    db.close();
  }
}

/**
 * What is remembered, in one transaction: the description ('about'), with `withFilter` the filter's
 * bytes, and the generation, a number every write and every Forget raise (0 before the first), so that a
 * run can tell whether another tab changed the remembered lines since it read them.
 * @returns {Promise<{ about: any, filter: Uint8Array | undefined, generation: number }>}
 */
function readRemembered(withFilter) {
  return withStore('readonly', (store, set) => {
    const state = { about: undefined, filter: undefined, generation: 0 };
    set(state);
    const about = store.get('about');
    about.onsuccess = () => { state.about = about.result; };
    const generation = store.get('generation');
    generation.onsuccess = () => { state.generation = generation.result ?? 0; };
    if (!withFilter) return;
    const filter = store.get('filter');
    filter.onsuccess = () => { state.filter = filter.result; };
  });
}

/**
 * Stores the filter's bytes and its description, both or neither, and raises the generation; only if the
 * generation is still `generation`, the one the run read with the filter it added to: otherwise another
 * tab wrote or forgot in between, and writing would lose that. Resolves whether it stored.
 * @returns {Promise<boolean>}
 */
function storeRemembered(bytes, about, generation) {
  return withStore('readwrite', (store, set) => {
    set(false);
    const request = store.get('generation');
    request.onsuccess = () => {
      if ((request.result ?? 0) !== generation) return;
      store.put(bytes, 'filter');
      store.put(about, 'about');
      store.put(generation + 1, 'generation');
      set(true);
    };
  });
}

/** Deletes the filter and its description, and raises the generation (a run that read them must not write). */
function forgetRemembered() {
  return withStore('readwrite', (store) => {
    const request = store.get('generation');
    request.onsuccess = () => {
      store.delete('filter');
      store.delete('about');
      store.put((request.result ?? 0) + 1, 'generation');
    };
  });
}

// Runs that remember lines take turns across the tabs of this origin (Web Locks): each reads the filter
// when it starts and writes it when it ends, so two at once would lose one's lines. Without Web Locks,
// the generation still stops a run from writing over another's.
const LOCK = 'cuckoo-wasm-dedup-remembered';
/** @type {LockManager | undefined} */
const locks = navigator.locks;

/**
 * Asks for the lock of runs that remember lines for `me`, which then holds it until me.release(). Resolves
 * true once it holds it, false when `options.ifAvailable` and another tab holds it; rejects when aborted.
 */
function requestLock(me, options) {
  return new Promise((resolve, reject) => {
    /** @type {LockManager} */ (locks).request(LOCK, options, (lock) => {
      if (!lock) {
        resolve(false);
        return undefined;
      }
      resolve(true);
      if (me.stopped) return undefined;
      return new Promise((release) => {
        me.release = () => release(undefined);
      });
    }).catch(reject);
  });
}

function showRemembered() {
  const text = $('remembered');
  if (!remembered) {
    text.textContent = 'Nothing is remembered in this browser.';
  } else {
    const unit = JSON.parse(remembered.keys).csv ? 'record' : 'line';
    text.textContent = `Remembered in this browser: ${plural(remembered.lines, unit)} (keyed by ${remembered.keysText}), ` +
      `in a filter of ${plural(remembered.bytes, 'byte')}.${$('remember').checked ? '' : ' Runs leave it aside while remembering is off.'}`;
  }
  $('forget').disabled = !remembered || run !== undefined;
}

// --- the output file, where the browser can write one as the run goes ---

/** @type {any} */
const win = window;
const canSave = typeof win.showSaveFilePicker === 'function';

function showOutput() {
  $('save-choice').hidden = !canSave;
  $('save-clear').hidden = !saveHandle;
  $('save-to-file').textContent = saveHandle ? 'Choose another file…' : 'Save to a file as it runs…';
  $('output-hint').textContent = !canSave
    ? 'The unique lines are offered as a download when the run ends (this browser cannot write a file as the run goes).'
    : saveHandle
      ? `The next run writes its output to ${saveHandle.name} as it goes. If it is cancelled or fails, the browser ` +
        `discards what it wrote and ${saveHandle.name} stays as it was.`
      : 'The unique lines are offered as a download when the run ends. To write an output larger than memory, save ' +
        'to a file as it runs: choose the file first, then the input.';
}

// --- a run ---

function resetCounters() {
  for (const id of ['lines', 'unique', 'duplicates']) $(id).textContent = '0';
  for (const id of ['rate', 'percent', 'time-left', 'false-drops']) $(id).textContent = '–';
  $('false-drops-label').textContent = `Chance any unique ${keySettings().unit} was wrongly dropped`;
  progressBar.value = 0;
  $('binary-warning').hidden = true;
  link.hidden = true;
}

/** The list of the files, each with where the run is (reading, read) and a button to move it up. */
function showFiles(current = -1) {
  $('files').hidden = chosen.length === 0;
  const busy = run !== undefined;
  fileList.replaceChildren(...chosen.map((file, i) => {
    const item = document.createElement('li');
    const name = document.createElement('span');
    name.className = 'file-name';
    name.textContent = file.name;
    const detail = document.createElement('span');
    detail.className = 'file-detail';
    detail.textContent = `${plural(file.size, 'byte')}${!busy || current < 0 ? '' : i < current ? ', read' : i === current ? ', reading' : ', waiting'}`;
    item.append(name, ' ', detail);
    if (i === current && busy) item.setAttribute('aria-current', 'step');
    if (i > 0 && !busy) {
      const up = document.createElement('button');
      up.type = 'button';
      up.className = 'move-up';
      up.textContent = '↑';
      up.title = 'Read it one place earlier';
      up.setAttribute('aria-label', `Move ${file.name} up`);
      up.addEventListener('click', () => {
        [chosen[i - 1], chosen[i]] = [chosen[i], chosen[i - 1]];
        showFiles();
        /** @type {HTMLElement | undefined} */ (fileList.querySelectorAll('.move-up')[Math.max(0, i - 2)])?.focus();
      });
      item.append(up);
    }
    return item;
  }));
  const again = $('run-files');
  again.hidden = busy || chosen.length === 0;
  again.textContent = chosen.length > 1 ? 'Deduplicate these files in this order' : 'Deduplicate this file again';
}

function stop(message, state) {
  if (run) {
    run.worker?.terminate();
    clearTimeout(run.timer);
    run.stopped = true;
    run.abort.abort(); // if it was waiting for the lock
    run.release?.();
  }
  run = undefined;
  $('cancel').hidden = true;
  $('status').textContent = message;
  document.body.dataset.state = state;
  showFiles();
  showRemembered();
}

const MIN_RATE_SECONDS = 0.2;

function showProgress(data) {
  const fraction = data.total > 0 ? data.done / data.total : 1;
  progressBar.value = fraction;
  $('percent').textContent = `${(fraction * 100).toFixed(1)}%`;
  $('lines').textContent = number(data.lines);
  $('unique').textContent = number(data.unique);
  $('duplicates').textContent = number(data.lines - data.unique);
  // A speed over a few milliseconds measures the start of a worker, not the lines.
  $('rate').textContent = data.seconds >= MIN_RATE_SECONDS ? number(Math.round(data.lines / data.seconds)) : '–';
  $('time-left').textContent = data.type === 'done' ? '0 s' : fraction > 0 ? duration(data.seconds / fraction - data.seconds) : '–';
  $('binary-warning').hidden = !data.binary;
}

/** Deduplicates `files` together, in this order, with the page's settings. */
async function start(files) {
  if (run) stop('Stopped: a new run began.', 'cancelled');
  if (downloadUrl) URL.revokeObjectURL(downloadUrl);
  downloadUrl = undefined;
  const keys = keySettings();
  const rememberOn = $('remember').checked;
  const output = saveHandle;
  const total = files.reduce((sum, f) => sum + f.size, 0);
  const me = { worker: undefined, cancelled: false, timer: 0, stopped: false, release: undefined, abort: new AbortController() };
  run = me;
  chosen = files;
  resetCounters();
  showFiles();
  showRemembered();
  const reading = files.length === 1
    ? `Reading ${files[0].name} (${plural(total, 'byte')})…`
    : `Reading ${number(files.length)} files (${plural(total, 'byte')} in all)…`;
  $('status').textContent = reading;
  $('cancel').hidden = false;
  document.body.dataset.state = 'running';
  let seenBytes;
  let generation = 0;
  let resolved;
  if (rememberOn) {
    // What is remembered is read now, when this run holds the lock, not when the page loaded: another tab
    // may have remembered or forgotten lines since.
    if (locks) {
      try {
        if (!(await requestLock(me, { ifAvailable: true })) && run === me) {
          $('status').textContent = "Waiting for another tab's run that remembers lines: this run starts when it ends, " +
            'with the lines it remembered.';
          document.body.dataset.state = 'waiting';
          await requestLock(me, { signal: me.abort.signal });
        }
      } catch (error) {
        if (run === me) stop(`Stopped: the browser did not let this run wait for the others (${error.message}).`, 'error');
        return;
      }
      if (run !== me) {
        me.release?.();
        return;
      }
      $('status').textContent = reading;
      document.body.dataset.state = 'running';
    }
    let state;
    try {
      state = await readRemembered(true);
    } catch (error) {
      if (run === me) stop(`Stopped: the remembered lines could not be read: ${error.message}`, 'error');
      return;
    }
    if (run !== me) return;
    remembered = state.about;
    generation = state.generation;
    showRemembered();
    let header;
    if (keys.csv && keys.fields !== '') {
      try {
        header = await csvHeader(files, keys.used ?? ',');
      } catch (error) {
        if (run === me) stop(`Stopped: ${files.find((f) => f.size > 0)?.name}: ${error.message}`, 'error');
        return;
      }
      if (run !== me) return;
    }
    resolved = resolveKeys(keys, header);
    // Settings the engine refuses (none resolved) stop the run before any line reaches the filter.
    if (remembered && resolved && resolved.id !== rememberedIdentity(remembered, header)) {
      stop(`Stopped: the remembered ${JSON.parse(remembered.keys).csv ? 'records' : 'lines'} were keyed by ` +
        `${remembered.keysText}, and this run by ${resolved.text || keys.text}: a filter of keys only fits runs that make them the same way. ` +
        'Set the keys as before, or Forget the remembered lines.', 'error');
      return;
    }
    seenBytes = remembered ? state.filter : undefined;
  }
  const worker = new Worker(new URL('dedup-worker.js', import.meta.url), { type: 'module' });
  me.worker = worker;
  worker.onmessage = async ({ data }) => {
    if (run !== me) return;
    if (data.type === 'progress' || data.type === 'done') {
      showProgress(data);
      if (data.type === 'progress') showFiles(data.fileIndex);
    }
    if (data.type === 'cancelled') stop(cancelledMessage(output), 'cancelled');
    if (data.type === 'error') stop(`Stopped: ${data.message}`, 'error');
    if (data.type !== 'done') return;
    worker.terminate();
    me.worker = undefined;
    $('cancel').hidden = true;
    const unit = keys.unit;
    $('false-drops-label').textContent = data.wrongDropBound >= 1 ? `Unique ${unit}s wrongly dropped (expected)` : `Chance any unique ${unit} was wrongly dropped`;
    $('false-drops').textContent = data.unique === 0 ? '–' : data.wrongDropBound >= 1
      ? `up to about ${about(data.wrongDropBound)} ${about(data.wrongDropBound) === '1' ? unit : `${unit}s`}`
      : `at most 1 in ${about(1 / data.wrongDropBound)}`;
    let where;
    if (output) {
      where = `Written to ${output.name} (${plural(data.written, 'byte')}).`;
      saveHandle = undefined; // the next run would overwrite it: it asks for a file again
      showOutput();
    } else {
      downloadUrl = URL.createObjectURL(data.output);
      link.href = downloadUrl;
      link.download = outputName(files);
      link.textContent = `Download ${outputName(files)}`;
      link.hidden = false;
      where = '';
    }
    if (data.remember) {
      // Its size is the engine's filterBytes, as the result says it (the stored export adds a header).
      const record = {
        lines: data.rememberedAfter, bytes: data.filterBytes, keys: resolved?.id ?? keys.id, keysText: resolved?.text || keys.text, savedAt: Date.now(),
      };
      let stored;
      try {
        stored = await storeRemembered(data.remember, record, generation);
      } catch (error) {
        if (run === me) {
          stop(`The output is complete, but the ${unit}s seen could not be remembered (${error.message}): ` +
            `the remembered ${unit}s are as they were, so the next run may write this run's new ones again.`, 'error');
        }
        return;
      }
      if (!stored) {
        // Another tab remembered or forgot lines during this run (a browser without Web Locks, or a Forget).
        remembered = await readRemembered(false).then((state) => state.about, () => remembered);
        if (run === me) {
          stop(`The output is complete, but another tab changed the remembered ${unit}s while this run went on, so this ` +
            `run's ${unit}s were not remembered (that would have lost the other tab's). Run it again to remember them.`, 'error');
        }
        return;
      }
      remembered = record;
    }
    if (run !== me) return;
    const header = keys.csv ? ' (the header not counted)' : '';
    const threads = data.threads === 2 ? ' on two threads' : '';
    stop(`Done: ${plural(data.unique, `unique ${unit}`)} of ${number(data.lines)}${header}, in ${data.seconds.toFixed(2)} s${threads}. ` +
      `${filterSummary(data, unit)} ${dropChance(data.wrongDropBound, data.unique, data.lines, unit)}${where ? ` ${where}` : ''}`, 'done');
    $('result').scrollIntoView({ block: 'nearest' });
  };
  worker.onerror = (event) => {
    if (run === me) stop(`Stopped: ${event.message || 'the worker failed to start'}`, 'error');
  };
  const rate = $('fp-rate').value;
  worker.postMessage({
    type: 'run',
    files,
    // Automatic (''): no rate, the engine picks it.
    fpRate: rate === '' ? undefined : Number(rate),
    csv: keys.csv,
    fields: keys.fields === '' ? undefined : keys.fields,
    delimiter: keys.delimiter,
    remember: rememberOn,
    seenBytes,
    output,
    threads: threadsAsked(),
  }, seenBytes ? [seenBytes.buffer] : []);
}

// ?threads=1 or ?threads=2 in the page's address: one thread, or two (a helper worker) for any input. By
// default a run takes two where the browser has a core to spare, for inputs of 128 MiB or more.
function threadsAsked() {
  const asked = new URLSearchParams(location.search).get('threads');
  return asked === '1' || asked === '2' ? Number(asked) : undefined;
}

function cancelledMessage(output) {
  return output
    ? `Cancelled: the browser discarded what was written, and ${output.name} is as it was before the run.`
    : 'Cancelled: nothing was written.';
}

$('cancel').addEventListener('click', () => {
  const current = run;
  if (!current) return;
  if (!current.worker) {
    stop(cancelledMessage(saveHandle), 'cancelled');
    return;
  }
  // The worker stops between blocks and discards the output file it writes; if it does not answer, it
  // is stopped anyway (the browser then drops the unfinished file).
  current.cancelled = true;
  current.worker.postMessage({ type: 'cancel' });
  $('status').textContent = 'Cancelling…';
  current.timer = setTimeout(() => {
    if (run === current) stop(cancelledMessage(saveHandle), 'cancelled');
  }, 5000);
});

$('dedup-file').addEventListener('change', (event) => {
  const input = /** @type {HTMLInputElement} */ (event.target);
  const files = [...(input.files ?? [])];
  input.value = ''; // so that choosing the same file again runs again
  if (files.length > 0) start(files);
});
$('run-paste').addEventListener('click', () => {
  start([new File([$('paste').value], 'pasted text', { type: 'text/plain' })]);
});
$('run-files').addEventListener('click', () => {
  if (chosen.length > 0) start([...chosen]);
});
const drop = $('drop');
drop.addEventListener('dragover', (event) => {
  event.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (event) => {
  event.preventDefault();
  drop.classList.remove('over');
  const files = [...(event.dataTransfer?.files ?? [])];
  if (files.length > 0) start(files);
});

$('csv').addEventListener('change', showKeySettings);
$('remember').addEventListener('change', showRemembered);
$('forget').addEventListener('click', async () => {
  $('forget').disabled = true;
  try {
    await forgetRemembered();
    remembered = undefined;
  } catch (error) {
    $('remembered').textContent = `The remembered lines could not be deleted: ${error.message}`;
    return;
  }
  showRemembered();
});
$('save-to-file').addEventListener('click', async () => {
  try {
    const csv = $('csv').checked;
    saveHandle = await win.showSaveFilePicker({ suggestedName: csv ? 'unique.csv' : 'unique.txt' });
  } catch (error) {
    if (error.name !== 'AbortError') $('output-hint').textContent = `No file was chosen: ${error.message}`;
    return;
  }
  showOutput();
});
$('save-clear').addEventListener('click', () => {
  saveHandle = undefined;
  showOutput();
});

showKeySettings();
showOutput();
// A visit with remembered lines goes on with them.
readRemembered(false).then(({ about: record }) => {
  remembered = record;
  if (remembered) $('remember').checked = true;
}, (error) => {
  $('remembered').textContent = `This browser does not let the page remember lines (${error.message}).`;
}).finally(() => {
  showRemembered();
  document.body.dataset.ready = 'true';
});
// Back to this tab: what is remembered may have changed in another (a run reads it again anyway).
document.addEventListener('visibilitychange', () => {
  if (document.hidden || run) return;
  readRemembered(false).then(({ about: record }) => {
    if (run) return;
    remembered = record;
    showRemembered();
  }, () => {});
});
