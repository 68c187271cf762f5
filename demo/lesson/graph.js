// The cuckoo graph: each bucket a point on a circle, each stored fingerprint an edge between its two
// buckets (the one it is in and the other one its fingerprint gives). A key's fingerprint can only ever
// be in the two buckets its edge joins, so a kick moves along an edge, a walk stays inside its group of
// connected buckets, and a group with as many edges as buckets or more contains a cycle.
import { $, plural, svgElement } from './text.js';

const SIZE = 300;
const RADIUS = 126;
const drawn = { buckets: 0, nodes: [] };
const alternates = new WeakMap(); // slots -> their edges: frames that share a table share its edges

function place(i, n) {
  const angle = (2 * Math.PI * i) / n;
  return [SIZE / 2 + RADIUS * Math.sin(angle), SIZE / 2 - RADIUS * Math.cos(angle)];
}

function edgesOf(filter, slots, b) {
  let edges = alternates.get(slots);
  if (edges === undefined) {
    edges = [];
    for (let i = 0; i < slots.length; i++) {
      if (slots[i] === 0) continue;
      const bucket = Math.floor(i / b);
      edges.push([bucket, filter.alternate(bucket, slots[i]).alternateIndex]);
    }
    edges.d = allEdges(edges, filter.bucketCount);
    alternates.set(slots, edges);
  }
  return edges;
}

/** Groups of connected buckets: a parent array (union-find) over the edges. */
function groups(n, edges) {
  const parent = Array.from({ length: n }, (_, i) => i);
  const root = (i) => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (const [a, c] of edges) parent[root(a)] = root(c);
  return root;
}

/** An edge; the k-th of several between the same two buckets bends aside, so each one can be seen. */
const line = ([a, c], n, k = 0, of = 1) => {
  const [x1, y1] = place(a, n);
  const [x2, y2] = place(c, n);
  const bend = (k - (of - 1) / 2) * 12;
  const length = Math.hypot(x2 - x1, y2 - y1) || 1;
  const mx = (x1 + x2) / 2 + (bend * (y2 - y1)) / length;
  const my = (y1 + y2) / 2 - (bend * (x2 - x1)) / length;
  return `M${x1.toFixed(1)},${y1.toFixed(1)}Q${mx.toFixed(1)},${my.toFixed(1)} ${x2.toFixed(1)},${y2.toFixed(1)}`;
};

function allEdges(edges, n) {
  const pairs = new Map();
  for (const [a, c] of edges) {
    const id = a < c ? `${a}:${c}` : `${c}:${a}`;
    pairs.set(id, [...(pairs.get(id) ?? []), a < c ? [a, c] : [c, a]]);
  }
  return [...pairs.values()].flatMap((same) => same.map((e, k) => line(e, n, k, same.length))).join('');
}

/** Draws the graph of `frame`'s table, with the key's edge (its two buckets) and the kick of this step. */
/** The graph's width changed (a resize): its numbers are sized again at the next drawing. */
export function graphResized() {
  drawn.buckets = 0;
}

export function drawGraph(filter, frame) {
  const n = filter.bucketCount;
  const b = filter.bucketSize;
  const svg = $('graph');
  if (drawn.buckets !== n || drawn.nodes[0]?.ownerSVGElement !== svg) {
    svg.setAttribute('viewBox', `0 0 ${SIZE} ${SIZE}`);
    svg.replaceChildren();
    for (const name of ['graph-edges', 'graph-key', 'graph-kick']) svgElement('path', { class: name, d: '' }, undefined, svg);
    drawn.nodes = [];
    // The numbers are drawn 12.5 px high on screen, whatever the width the graph is shown at (measured
    // here, when the graph is built, not at every step). Where the points are too close for a number
    // inside its circle (32 buckets or more), the numbers go outside the ring, every k-th bucket.
    const scale = (svg.clientWidth || SIZE) / SIZE;
    const font = 12.5 / scale;
    const spacing = (2 * Math.PI * RADIUS) / n;
    const r = Math.min(9, spacing / 2 - 1);
    const width = 0.62 * font * String(n - 1).length;
    const inside = width + 3 <= 2 * r;
    const every = inside ? 1 : Math.ceil((width + 4) / spacing);
    svg.style.setProperty('--graph-font', `${font.toFixed(2)}px`);
    for (let i = 0; i < n; i++) {
      const [x, y] = place(i, n);
      const node = svgElement('g', { 'data-node': i, transform: `translate(${x.toFixed(1)},${y.toFixed(1)})` }, undefined, svg);
      svgElement('circle', { r: r.toFixed(1) }, undefined, node);
      if (inside) svgElement('text', {}, String(i), node);
      else if (i % every === 0) {
        const angle = (2 * Math.PI * i) / n;
        const out = r + 0.75 * font;
        svgElement('text', { x: (out * Math.sin(angle)).toFixed(1), y: (-out * Math.cos(angle)).toFixed(1) }, String(i), node);
      }
      drawn.nodes.push(node);
    }
    drawn.buckets = n;
  }
  const edges = edgesOf(filter, frame.slots, b);
  const paths = svg.querySelectorAll('path');
  if (paths[0].getAttribute('d') !== edges.d) paths[0].setAttribute('d', edges.d);
  const key = frame.candidates.length === 2 ? frame.candidates : undefined;
  paths[1].setAttribute('d', key ? line(key, n) : '');
  paths[2].setAttribute('d', frame.arrows.map((e) => line(e, n)).join(''));
  drawn.nodes.forEach((node, i) => node.setAttribute('class', key?.[0] === i ? 'candidate-1' : key?.[1] === i ? 'candidate-2' : ''));

  const root = groups(n, edges);
  const size = new Map();
  const count = new Map();
  for (let i = 0; i < n; i++) size.set(root(i), (size.get(root(i)) ?? 0) + 1);
  for (const [a] of edges) count.set(root(a), (count.get(root(a)) ?? 0) + 1);
  const cyclic = [...count].filter(([r, e]) => e >= size.get(r)).length;
  const said = [`${plural(edges.length, 'fingerprint')}, ${plural(edges.length, 'edge')} between ${n} buckets. ` +
    (cyclic === 0
      ? 'No group of connected buckets has as many edges as buckets, so there is no cycle yet.'
      : `${plural(cyclic, 'group')} of connected buckets ${cyclic === 1 ? 'has' : 'have'} as many edges as buckets or more, so ${cyclic === 1 ? 'it contains' : 'each contains'} a cycle: ` +
        'edges that lead back to where they started, which a kick-out walk can go round.')];
  if (key) {
    // The key's edge joins the groups of its two buckets: a walk for it moves fingerprints inside them only.
    const ends = new Set([root(key[0]), root(key[1])]);
    const buckets = [...ends].reduce((s, r) => s + size.get(r), 0);
    const held = [...ends].reduce((s, r) => s + (count.get(r) ?? 0), 0);
    // Two groups until the key's own edge joins them: said as two, which the new edge makes one.
    const where = ends.size === 1
      ? `in a group of ${plural(buckets, 'bucket')} with ${buckets * b} slots, which holds`
      : `which are in two groups of ${size.get(root(key[0]))} and ${size.get(root(key[1]))} buckets; the edge makes them one, of ${buckets} buckets with ${buckets * b} slots, which hold`;
    said.push(`The key's edge (dashed) joins buckets ${key[0]} and ${key[1]}, ${where} ${plural(held, 'fingerprint')}` +
      (held >= buckets * b
        ? ': it is full, so no walk can make room for one more.'
        : frame.reach
          ? '. A free slot in the group is not always within reach: a kick moves a fingerprint only out of the bucket it is in, so a walk follows the edges in one direction, from the bucket a fingerprint sits in to its other one, which the graph does not draw (the shading in the table shows where this walk can go).'
          : '.'));
  }
  $('graph-text').textContent = said.join(' ');
}
