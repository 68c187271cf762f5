// The dedup page's main thread: it only hands the file to the worker and shows what it reports, so the
// page stays responsive whatever the file's size.
const $ = (id) => document.getElementById(id);
const number = (n) => n.toLocaleString('en');
let worker;
let downloadUrl;

function start(file) {
  worker?.terminate();
  if (downloadUrl) URL.revokeObjectURL(downloadUrl);
  $('dedup-download').hidden = true;
  $('dedup-progress').value = 0;
  $('status').textContent = `Reading ${file.name ?? 'the pasted text'} (${number(file.size)} bytes)…`;
  document.body.dataset.state = 'running';
  worker = new Worker(new URL('dedup-worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = ({ data }) => {
    if (data.type === 'progress' || data.type === 'done') {
      $('dedup-progress').value = data.total > 0 ? data.done / data.total : 1;
      $('lines').textContent = number(data.lines);
      $('unique').textContent = number(data.unique);
      $('duplicates').textContent = number(data.lines - data.unique);
      $('rate').textContent = number(Math.round(data.linesPerSecond));
    }
    if (data.type === 'done') {
      $('false-drops').textContent = data.expectedFalseDrops.toPrecision(2);
      downloadUrl = URL.createObjectURL(data.output);
      const link = $('dedup-download');
      link.href = downloadUrl;
      link.hidden = false;
      $('status').textContent = `Done: ${number(data.unique)} unique lines of ${number(data.lines)}, in ${data.seconds.toFixed(2)} s ` +
        `(filter: ${data.fingerprintBits}-bit fingerprints, ${number(data.filterBytes)} bytes).`;
      document.body.dataset.state = 'done';
    }
    if (data.type === 'error') {
      $('status').textContent = `Stopped: ${data.message}`;
      document.body.dataset.state = 'error';
    }
  };
  worker.postMessage({ file, fpRate: Number($('fp-rate').value) });
}

$('dedup-file').addEventListener('change', (event) => {
  const file = event.target.files?.[0];
  if (file) start(file);
});
$('run-paste').addEventListener('click', () => {
  start(new File([$('paste').value], 'pasted text', { type: 'text/plain' }));
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
  const file = event.dataTransfer?.files?.[0];
  if (file) start(file);
});
document.body.dataset.ready = 'true';
