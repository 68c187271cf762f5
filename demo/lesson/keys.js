// Keys and slots connected: the list of keys added on this page, and what is behind a slot. The filter
// stores fingerprints only; the page remembers the keys it added itself, for these explanations.
import { $, hex, quote } from './text.js';

/** Where a key's fingerprint sits in the drawn table: its two buckets and the slots holding its fingerprint. */
export function keyFocus(filter, slots, key) {
  const at = filter.locate(key);
  const b = filter.bucketSize;
  const found = [];
  for (const bucket of new Set([at.index, at.alternateIndex])) {
    for (let s = 0; s < b; s++) if (slots[bucket * b + s] === at.fingerprint) found.push([bucket, s]);
  }
  return { buckets: [at.index, at.alternateIndex], slots: found, location: at };
}

/**
 * The keys added on this page whose fingerprint is `value` and whose two buckets include `bucket`,
 * leaving out the keys in `lost` (an unsafe delete took their fingerprint: none of it is theirs).
 */
export function keysBehind(filter, keys, bucket, value, lost = new Map()) {
  const out = [];
  for (const key of keys.keys()) {
    if (lost.has(key)) continue;
    const at = filter.locate(key);
    if (at.fingerprint === value && (at.index === bucket || at.alternateIndex === bucket)) out.push({ key, at });
  }
  return out;
}

export function describeSlot(filter, keys, lost, slots, bucket, slot) {
  const bits = filter.fingerprintBits;
  const value = slots[bucket * filter.bucketSize + slot];
  const where = `Bucket ${bucket}, slot ${slot}`;
  if (value === 0) return `${where} is empty.`;
  if (keys === null) return `${where} holds ${hex(value, bits)}. Origin unknown: an imported filter holds fingerprints, not keys.`;
  const owners = keysBehind(filter, keys, bucket, value, lost);
  if (owners.length === 0) return `${where} holds ${hex(value, bits)}; no key added on this page has that fingerprint in this bucket.`;
  const names = owners.map(({ key, at }) => `${quote(key)} (buckets ${at.index} and ${at.alternateIndex})`);
  return `${where} holds ${hex(value, bits)}, the fingerprint of ${names.length === 1 ? names[0] : `${names.length} keys: ${names.join(', ')}`}.`;
}

/**
 * The list of keys, each a button: hover or focus outlines it, a click puts it in the key field. Keys in
 * `lost` (key -> the key whose unsafe delete took its fingerprint) are marked: added, never deleted, gone.
 */
export function renderKeys(keys, lost, { onFocus, onPick }) {
  const list = $('keys');
  if (keys === null) {
    $('keys-note').textContent = 'The filter was imported: its keys are unknown (origin unknown).';
    list.replaceChildren();
    delete list.dataset.shown;
    return;
  }
  const lostNote = [...lost].filter(([key]) => keys.has(key)).map(([key, by]) => `${quote(key)} is marked lost: it was added and never deleted, but the delete of ${quote(by)} removed its fingerprint.`);
  $('keys-note').textContent = keys.size === 0 ? 'No keys yet.' : ['Point at a key (or tap it) to see its slots; tap a slot to see its keys.', ...lostNote].join(' ');
  // Rebuilt only when it changed: 300 buttons are several milliseconds, and every replay asks twice.
  const shown = JSON.stringify([[...keys], [...lost.keys()].filter((key) => keys.has(key))]);
  if (list.dataset.shown === shown) return;
  list.dataset.shown = shown;
  list.replaceChildren(...[...keys].map(([key, copies]) => {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = lost.has(key) ? 'key-chip lost' : 'key-chip';
    button.dataset.key = key;
    button.textContent = `${quote(key)}${copies > 1 ? ` ×${copies}` : ''}${lost.has(key) ? ' (lost)' : ''}`;
    button.addEventListener('mouseenter', () => onFocus(key));
    button.addEventListener('focus', () => onFocus(key));
    button.addEventListener('mouseleave', () => onFocus(undefined));
    button.addEventListener('blur', () => onFocus(undefined));
    button.addEventListener('click', () => onPick(key));
    item.append(button);
    return item;
  }));
}
