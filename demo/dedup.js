// The dedup page's main thread: it hands the file to the worker and shows what it reports, so the page
// stays responsive whatever the file's size.
/**
 * The element of the page's own markup with this id (it exists). Typed as a form control, which most of
 * them are; other kinds are cast where they are used.
 * @param {string} id
 * @returns {HTMLInputElement}
 */
const $ = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
const number = (n) => n.toLocaleString('en');
const progressBar = /** @type {HTMLProgressElement} */ (document.getElementById('dedup-progress'));
let worker;
let downloadUrl;

const plural = (n, one, many = `${one}s`) => `${number(n)} ${n === 1 ? one : many}`;

/** A number for a sentence, to two significant figures: 2.4, 17,000, 17 million. */
function about(x) {
  if (x >= 1e6) return `${Number((x / 1e6).toPrecision(2)).toLocaleString('en')} million`;
  return Number(x.toPrecision(2)).toLocaleString('en');
}

/**
 * The loss budget in words. wrongDropBound bounds the expected number of unique lines wrongly dropped;
 * the chance that any was dropped is at most that number, so below 1 it reads as a chance.
 */
function dropChance(bound, unique) {
  if (unique === 0) return 'No lines, so none could be dropped.';
  if (bound >= 1) return `Up to about ${about(bound)} of the ${plural(unique, 'unique line')} may have been wrongly dropped (expected): a smaller false-positive rate makes that rarer.`;
  const which = unique === 1 ? 'the one unique line' : `any of the ${plural(unique, 'unique line')}`;
  return `At most about a 1 in ${about(1 / bound)} chance that ${which} was wrongly dropped.`;
}

/** What the filter took: bytes per line read and per unique line, and what it was sized for. */
function filterSummary(data) {
  if (data.filterBytes === 0) return 'The input is empty: there was nothing to remember, so no filter was made.';
  const per = (n) => (data.filterBytes / n).toFixed(2);
  const shape = data.doublings > 0
    ? `${data.fingerprintBits}-bit slots, doubled ${data.doublings === 1 ? 'once' : `${data.doublings} times`} in place`
    : `${data.fingerprintBits}-bit slots`;
  return `The filter took ${number(data.filterBytes)} bytes (${shape}). It was made when reading began, with room for ` +
    `${plural(data.capacity, 'line')}, and its table doubles as unique lines come, so its memory follows them: ` +
    `it costs ${per(data.lines)} bytes per line read and ${per(data.unique)} bytes per unique line.`;
}

function duration(seconds) {
  if (!Number.isFinite(seconds)) return '–';
  if (seconds < 60) return `${Math.max(0, Math.round(seconds))} s`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

// "names.txt" -> "names.unique.txt"; no extension: "data" -> "data.unique.txt".
function outputName(name) {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)}.unique${name.slice(dot)}` : `${name}.unique.txt`;
}

function resetCounters() {
  for (const id of ['lines', 'unique', 'duplicates']) $(id).textContent = '0';
  for (const id of ['rate', 'percent', 'time-left', 'false-drops']) $(id).textContent = '–';
  progressBar.value = 0;
  $('binary-warning').hidden = true;
  $('dedup-download').hidden = true;
}

function stop(message, state) {
  worker?.terminate();
  worker = undefined;
  $('cancel').hidden = true;
  $('status').textContent = message;
  document.body.dataset.state = state;
}

function start(file) {
  worker?.terminate();
  if (downloadUrl) URL.revokeObjectURL(downloadUrl);
  resetCounters();
  const name = file.name || 'pasted text';
  $('status').textContent = `Reading ${name} (${number(file.size)} bytes)…`;
  $('cancel').hidden = false;
  document.body.dataset.state = 'running';
  worker = new Worker(new URL('dedup-worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = ({ data }) => {
    if (data.type === 'progress' || data.type === 'done') {
      const fraction = data.total > 0 ? data.done / data.total : 1;
      progressBar.value = fraction;
      $('percent').textContent = `${(fraction * 100).toFixed(1)}%`;
      $('lines').textContent = number(data.lines);
      $('unique').textContent = number(data.unique);
      $('duplicates').textContent = number(data.lines - data.unique);
      $('rate').textContent = number(Math.round(data.lines / Math.max(data.seconds, 1e-3)));
      $('time-left').textContent = data.type === 'done' ? '0 s' : fraction > 0 ? duration(data.seconds / fraction - data.seconds) : '–';
      $('binary-warning').hidden = !data.binary;
    }
    if (data.type === 'done') {
      $('false-drops').textContent = data.unique === 0 ? '–' : data.wrongDropBound >= 1 ? `up to about ${about(data.wrongDropBound)} lines` : `at most 1 in ${about(1 / data.wrongDropBound)}`;
      downloadUrl = URL.createObjectURL(data.output);
      const link = /** @type {HTMLAnchorElement} */ (document.getElementById('dedup-download'));
      link.href = downloadUrl;
      link.download = outputName(name);
      link.textContent = `Download ${outputName(name)}`;
      link.hidden = false;
      stop(`Done: ${plural(data.unique, 'unique line')} of ${number(data.lines)}, in ${data.seconds.toFixed(2)} s. ` +
        `${filterSummary(data)} ${dropChance(data.wrongDropBound, data.unique)}`, 'done');
      $('result').scrollIntoView({ block: 'nearest' });
    }
    if (data.type === 'error') stop(`Stopped: ${data.message}`, 'error');
  };
  worker.postMessage({ file, fpRate: Number($('fp-rate').value) });
}

$('dedup-file').addEventListener('change', (event) => {
  const file = /** @type {HTMLInputElement} */ (event.target).files?.[0];
  if (file) start(file);
});
$('run-paste').addEventListener('click', () => {
  start(new File([$('paste').value], 'pasted.txt', { type: 'text/plain' }));
});
$('cancel').addEventListener('click', () => stop('Cancelled: nothing was written.', 'cancelled'));
const drop = $('drop');
drop.addEventListener('dragover', (event) => {
  event.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (event) => {
  event.preventDefault();
  drop.classList.remove('over');
  const file = event.dataTransfer?.files?.[0];
  if (file) start(file);
});
document.body.dataset.ready = 'true';
