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

/** Every slot of a bucket, each with its keys: what a tap on a bucket (anywhere, not only on a slot) shows. */
export function describeBucket(filter, keys, lost, slots, bucket) {
  const bits = filter.fingerprintBits;
  const b = filter.bucketSize;
  const parts = [];
  for (let slot = 0; slot < b; slot++) {
    const value = slots[bucket * b + slot];
    if (value === 0) {
      parts.push(`slot ${slot} empty`);
      continue;
    }
    const owners = keys === null ? [] : keysBehind(filter, keys, bucket, value, lost).map(({ key }) => quote(key));
    parts.push(`slot ${slot} ${hex(value, bits)}${keys === null ? ' (origin unknown)' : owners.length > 0 ? ` (${owners.join(', ')})` : ' (no key added on this page)'}`);
  }
  return `Bucket ${bucket}: ${parts.join('; ')}.`;
}

// The key list's items by key, kept between calls: a replay's last step adds or removes one key, and
// rebuilding 300 buttons (and their listeners) for it took longer than a frame.
const chips = new Map();
let handlers;

function watchList(list) {
  if (handlers !== undefined) return;
  handlers = {};
  /** @returns {HTMLElement | null} */
  const chipOf = (target) => (target instanceof Element ? target.closest('.key-chip') : null);
  // One listener each for the whole list: hover or focus outlines a key, a click picks it.
  list.addEventListener('mouseover', (event) => {
    const chip = chipOf(event.target);
    if (chip && !chip.contains(/** @type {Node} */ (event.relatedTarget))) handlers.onFocus(chip.dataset.key);
  });
  list.addEventListener('mouseout', (event) => {
    const chip = chipOf(event.target);
    if (chip && !chip.contains(/** @type {Node} */ (event.relatedTarget))) handlers.onFocus(undefined);
  });
  list.addEventListener('focusin', (event) => {
    const chip = chipOf(event.target);
    if (chip) handlers.onFocus(chip.dataset.key);
  });
  list.addEventListener('focusout', (event) => {
    if (chipOf(event.target)) handlers.onFocus(undefined);
  });
  list.addEventListener('click', (event) => {
    const chip = chipOf(event.target);
    if (chip) handlers.onPick(chip.dataset.key);
  });
}

/**
 * The list of keys, each a button: hover or focus outlines it, a click puts it in the key field. Keys in
 * `lost` (key -> the key whose unsafe delete took its fingerprint) are marked: added, never deleted, gone.
 */
export function renderKeys(keys, lost, { onFocus, onPick }) {
  const list = $('keys');
  watchList(list);
  handlers.onFocus = onFocus;
  handlers.onPick = onPick;
  if (keys === null) {
    $('keys-note').textContent = 'The filter was imported: its keys are unknown (origin unknown).';
    list.replaceChildren();
    chips.clear();
    return;
  }
  const lostNote = [...lost].filter(([key]) => keys.has(key)).map(([key, by]) => `${quote(key)} is marked lost: it was added and never deleted, but the delete of ${quote(by)} removed its fingerprint.`);
  const note = keys.size === 0 ? 'No keys yet.' : ['Point at a key (or tap it) to see its slots; point at a slot (or tap a bucket) to see its keys.', ...lostNote].join(' ');
  if ($('keys-note').textContent !== note) $('keys-note').textContent = note;
  // Only what changed is touched: items of keys gone are removed, new ones made, the rest moved only if
  // out of order, and a text or class written only when it differs.
  for (const [key, item] of chips) {
    if (!keys.has(key) || item.parentNode !== list) {
      item.remove();
      chips.delete(key);
    }
  }
  let at = list.firstElementChild;
  for (const [key, copies] of keys) {
    let item = chips.get(key);
    if (item === undefined) {
      item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.key = key;
      item.append(button);
      chips.set(key, item);
    }
    const button = /** @type {HTMLButtonElement} */ (item.firstElementChild);
    const name = lost.has(key) ? 'key-chip lost' : 'key-chip';
    const label = `${quote(key)}${copies > 1 ? ` ×${copies}` : ''}${lost.has(key) ? ' (lost)' : ''}`;
    if (button.className !== name) button.className = name;
    if (button.textContent !== label) button.textContent = label;
    if (item === at) at = at.nextElementSibling;
    else list.insertBefore(item, at);
  }
  while (at) {
    const next = at.nextElementSibling;
    at.remove();
    at = next;
  }
}
