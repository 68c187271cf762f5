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

/** The run in progress: its worker, and whether Cancel was asked. */
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

/** The settings of the keys, as the worker passes them to LineDeduper, and how to say them. */
function keySettings() {
  const csv = $('csv').checked;
  // "name, city" means the columns "name" and "city".
  const fields = $('key-fields').value.split(',').map((s) => s.trim()).filter((s) => s !== '').join(',');
  const typed = $('delimiter').value;
  // The engine's own defaults: a comma for CSV, a tab for fields (and no delimiter without fields).
  const delimiter = csv ? (typed === '' ? undefined : typed) : fields === '' ? undefined : typed || '\t';
  const used = delimiter ?? (csv ? ',' : undefined);
  const shown = used === '\t' ? 'tab' : `"${used}"`;
  const text = csv
    ? `${fields === '' ? 'all CSV columns' : `CSV column${fields.includes(',') ? 's' : ''} ${fields}`}${used === ',' ? '' : `, split at ${shown}`}`
    : fields === '' ? 'whole lines' : `field${/^\d+$/.test(fields) ? '' : 's'} ${fields} split at ${shown}`;
  // The remembered filter holds keys: it only fits runs that make them the same way.
  const id = JSON.stringify({ csv, fields, delimiter: used ?? null });
  return { csv, fields, delimiter, text, id, unit: csv ? 'record' : 'line' };
}

function showKeySettings() {
  const csv = $('csv').checked;
  $('key-fields-label').textContent = csv ? 'Key column(s)' : 'Key field(s)';
  $('key-fields').placeholder = csv ? 'email or 2 or name,city' : '2 or 2,4 or 3-';
  $('delimiter').placeholder = csv ? ',' : 'tab';
  $('keys-hint').textContent = csv
    ? 'Header names or 1-based column numbers, comma separated (email, 2, name,city); empty: all columns. Two records ' +
      'are the same when these columns hold the same values, quoted or not. The delimiter is a comma unless given.'
    : 'Empty: whole lines. Otherwise field numbers as for cut (2, 2,4, 2-3, 3-), split at the delimiter ' +
      '(a tab when empty), quotes or not: the line is written whole, and its key is those fields.';
  const unit = csv ? 'record' : 'line';
  const cap = csv ? 'Records' : 'Lines';
  $('lines-label').textContent = `${cap} read`;
  $('unique-label').textContent = `Unique ${unit}s`;
  $('rate-label').textContent = `${cap} per second`;
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

const readRecord = (key) => withStore('readonly', (store, set) => {
  const request = store.get(key);
  request.onsuccess = () => set(request.result);
});

/** Stores the filter's bytes and its description in one transaction: both or neither. */
function storeRemembered(bytes, about) {
  return withStore('readwrite', (store) => {
    store.put(bytes, 'filter');
    store.put(about, 'about');
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
  run?.worker?.terminate();
  if (run) clearTimeout(run.timer);
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
  const me = { worker: undefined, cancelled: false, timer: 0 };
  run = me;
  chosen = files;
  resetCounters();
  showFiles();
  showRemembered();
  $('status').textContent = files.length === 1
    ? `Reading ${files[0].name} (${plural(total, 'byte')})…`
    : `Reading ${number(files.length)} files (${plural(total, 'byte')} in all)…`;
  $('cancel').hidden = false;
  document.body.dataset.state = 'running';
  let seenBytes;
  if (rememberOn && remembered) {
    if (remembered.keys !== keys.id) {
      stop(`Stopped: the remembered ${JSON.parse(remembered.keys).csv ? 'records' : 'lines'} were keyed by ` +
        `${remembered.keysText}, and this run by ${keys.text}: a filter of keys only fits runs that make them the same way. ` +
        'Set the keys as before, or Forget the remembered lines.', 'error');
      return;
    }
    try {
      seenBytes = await readRecord('filter');
    } catch (error) {
      if (run === me) stop(`Stopped: the remembered lines could not be read: ${error.message}`, 'error');
      return;
    }
    if (run !== me) return;
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
      const record = { lines: data.rememberedAfter, bytes: data.filterBytes, keys: keys.id, keysText: keys.text, savedAt: Date.now() };
      try {
        await storeRemembered(data.remember, record);
        remembered = record;
      } catch (error) {
        if (run === me) {
          stop(`The output is complete, but the ${unit}s seen could not be remembered (${error.message}): ` +
            `the remembered ${unit}s are as they were, so the next run may write this run's new ones again.`, 'error');
        }
        return;
      }
    }
    if (run !== me) return;
    const header = keys.csv ? ' (the header not counted)' : '';
    stop(`Done: ${plural(data.unique, `unique ${unit}`)} of ${number(data.lines)}${header}, in ${data.seconds.toFixed(2)} s. ` +
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
  }, seenBytes ? [seenBytes.buffer] : []);
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
    await withStore('readwrite', (store) => {
      store.delete('filter');
      store.delete('about');
    });
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
readRecord('about').then((record) => {
  remembered = record;
  if (remembered) $('remember').checked = true;
}, (error) => {
  $('remembered').textContent = `This browser does not let the page remember lines (${error.message}).`;
}).finally(() => {
  showRemembered();
  document.body.dataset.ready = 'true';
});
