// The three algorithms as short pseudo-code; the player highlights the line each step executes.
import { $ } from './text.js';

export const LISTINGS = {
  insert: [
    'insert(key):',
    '  h  = hash(key)',
    '  f  = fingerprint(h);  i1 = index(h)',
    '  i2 = (N − i1 − r(f)) mod N',
    '  if i1 or i2 has a free slot:',
    '    put f there; return true',
    '  if both hold only f: return false  # too many copies',
    '  b = i1 or i2, at random',
    '  repeat max-kicks times:',
    '    swap f with a resident of b (one with room in its other bucket, if any)',
    '    b = (N − b − r(f)) mod N        # f: the evicted one',
    '    if b has a free slot: put f there; return true',
    '  undo every swap, last first; return false',
  ],
  lookup: [
    'lookup(key):',
    '  h  = hash(key)',
    '  f  = fingerprint(h);  i1 = index(h)',
    '  i2 = (N − i1 − r(f)) mod N',
    '  if i1 holds f: return "possibly present"',
    '  if i2 holds f: return "possibly present"',
    '  return "definitely not present"',
  ],
  delete: [
    'delete(key):',
    '  h  = hash(key)',
    '  f  = fingerprint(h);  i1 = index(h)',
    '  i2 = (N − i1 − r(f)) mod N',
    '  if i1 holds f: empty one such slot; return true',
    '  if i2 holds f: empty one such slot; return true',
    '  return false',
  ],
};

const shown = { listing: undefined, rows: [], line: -1 };

/** Shows `listing` with line `line` (an index into it) marked as the current one. */
export function showCode(listing, line) {
  const panel = $('code');
  if (shown.listing !== listing || shown.rows[0]?.parentNode !== panel) build(panel, listing);
  if (shown.line === line) return;
  shown.rows[shown.line]?.classList.remove('current');
  shown.rows[shown.line]?.removeAttribute('aria-current');
  shown.line = line;
  shown.rows[line]?.classList.add('current');
  shown.rows[line]?.setAttribute('aria-current', 'step');
  panel.setAttribute('aria-label', listing ? `Pseudo-code of ${listing}, line ${line} running` : 'Pseudo-code');
}

// Built once per listing; a step only moves the marked line.
function build(panel, listing) {
  const lines = LISTINGS[listing] ?? [];
  shown.listing = listing;
  shown.line = -1;
  panel.setAttribute('aria-label', 'Pseudo-code');
  $('code-title').textContent = listing ? `The algorithm: ${listing}` : 'The algorithm';
  panel.style.setProperty('--comment-at', `${Math.max(0, ...lines.map((text) => text.indexOf('#')))}ch`);
  shown.rows = lines.map((text, i) => {
    const row = document.createElement('span');
    row.className = 'code-line';
    row.dataset.line = String(i);
    // A line that wraps continues two columns right of its own indentation, so that a wrapped "return
    // true" still reads as inside its loop (the row's hanging indent is its indentation plus 2).
    const indent = text.length - text.trimStart().length;
    row.style.setProperty('--indent', `${indent + 2}ch`);
    // The comment in an element of its own, so that it keeps its column (or, where the box is narrow, a
    // line of its own) instead of wrapping under the code.
    const at = text.indexOf('#');
    if (at < 0) row.textContent = text;
    else {
      const code = document.createElement('span');
      code.className = 'code-text';
      code.textContent = text.slice(0, at);
      const comment = document.createElement('span');
      comment.className = 'code-comment';
      comment.textContent = text.slice(at);
      row.append(code, comment);
    }
    return row;
  });
  panel.replaceChildren(...shown.rows);
}
