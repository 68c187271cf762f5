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

/** The keys added on this page whose fingerprint is `value` and whose two buckets include `bucket`. */
export function keysBehind(filter, keys, bucket, value) {
  const out = [];
  for (const key of keys.keys()) {
    const at = filter.locate(key);
    if (at.fingerprint === value && (at.index === bucket || at.alternateIndex === bucket)) out.push({ key, at });
  }
  return out;
}

export function describeSlot(filter, keys, slots, bucket, slot) {
  const bits = filter.fingerprintBits;
  const value = slots[bucket * filter.bucketSize + slot];
  const where = `Bucket ${bucket}, slot ${slot}`;
  if (value === 0) return `${where} is empty.`;
  if (keys === null) return `${where} holds ${hex(value, bits)}. Origin unknown: an imported filter holds fingerprints, not keys.`;
  const owners = keysBehind(filter, keys, bucket, value);
  if (owners.length === 0) return `${where} holds ${hex(value, bits)}; no key added on this page has that fingerprint in this bucket.`;
  const names = owners.map(({ key, at }) => `${quote(key)} (buckets ${at.index} and ${at.alternateIndex})`);
  return `${where} holds ${hex(value, bits)}, the fingerprint of ${names.length === 1 ? names[0] : `${names.length} keys: ${names.join(', ')}`}.`;
}

/** The list of keys, each a button: hover or focus outlines it, a click puts it in the key field. */
export function renderKeys(keys, { onFocus, onPick }) {
  const list = $('keys');
  if (keys === null) {
    $('keys-note').textContent = 'The filter was imported: its keys are unknown (origin unknown).';
    list.replaceChildren();
    return;
  }
  $('keys-note').textContent = keys.size === 0 ? 'No keys yet.' : 'Point at a key (or tap it) to see its slots; tap a slot to see its keys.';
  list.replaceChildren(...[...keys].map(([key, copies]) => {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'key-chip';
    button.dataset.key = key;
    button.textContent = `${quote(key)}${copies > 1 ? ` ×${copies}` : ''}`;
    button.addEventListener('mouseenter', () => onFocus(key));
    button.addEventListener('focus', () => onFocus(key));
    button.addEventListener('mouseleave', () => onFocus(undefined));
    button.addEventListener('blur', () => onFocus(undefined));
    button.addEventListener('click', () => onPick(key));
    item.append(button);
    return item;
  }));
}
