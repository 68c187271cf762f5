// Formatting shared by every part of the teaching page.

/** A fingerprint in hexadecimal, zero-padded to the width of an f-bit value (0x05, not 0x5). */
export function hex(value, bits) {
  return `0x${value.toString(16).padStart(Math.ceil(bits / 4), '0')}`;
}

/** The slot text inside the drawing: the same digits without the 0x. */
export function digits(value, bits) {
  return value.toString(16).padStart(Math.ceil(bits / 4), '0');
}

const SHOWN_CHARACTERS = 40;

/**
 * A key quoted for a sentence: long keys are cut to their first characters with their length said, so
 * that a 10,000-character key cannot make a sentence (or the page) 100,000 pixels wide.
 */
export function quote(key) {
  const characters = Array.from(key);
  if (characters.length <= SHOWN_CHARACTERS) return `"${key}"`;
  return `"${characters.slice(0, SHOWN_CHARACTERS).join('')}…" (${characters.length.toLocaleString('en-US')} characters)`;
}

// One formatter for the page: toLocaleString builds a new one at every call, which a replay step felt.
const NUMBER = new Intl.NumberFormat('en-US');

export function plural(n, one, many = `${one}s`) {
  return `${NUMBER.format(n)} ${n === 1 ? one : many}`;
}

/**
 * The second-bucket formula worked out: "(16 − 5 − 7) mod 16 = 4", and when N − i − r is negative the
 * wrap is shown, not hidden: "(16 − 14 − 9) mod 16 = −7 mod 16 = −7 + 16 = 9". (i < N and 0 < r < N, so
 * one N is always enough.)
 */
export function modSteps(n, i, r, result) {
  const raw = n - i - r;
  const start = `(${n} − ${i} − ${r}) mod ${n}`;
  return raw >= 0 ? `${start} = ${result}` : `${start} = −${-raw} mod ${n} = −${-raw} + ${n} = ${result}`;
}

/** A probability as a percentage with sensible precision: 3.1%, 0.39%, 0.0012%. */
export function percent(p) {
  if (p === 0) return '0%';
  const value = p * 100;
  return `${value >= 10 ? value.toFixed(0) : value >= 1 ? value.toFixed(1) : value.toPrecision(2)}%`;
}

/**
 * The element of the page's own markup with this id (it exists). Typed as a form control, which most of
 * them are; other kinds are cast where they are used.
 * @param {string} id
 * @returns {HTMLInputElement}
 */
export const $ = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
export const SVG = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes (and text), appended to `parent` when given. */
export function svgElement(tag, attributes = {}, text, parent) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  parent?.append(element);
  return element;
}
