// Operations on the real filter, turned into frames for the player. Each builder runs the operation on
// the wasm filter once (the filter is the truth), and describes it as a list of frames: the table as it
// was at that step, what to outline, the pseudo-code line, and one sentence of narration. Inserts replay
// the trace the core recorded; deletes find the freed slot by comparing the table before and after.
import { hex, modSteps, plural, quote } from './text.js';

/**
 * The buckets a kick-out walk starting from `start` can reach: from bucket B it can only send a resident
 * fingerprint to that fingerprint's other bucket, so this is the closure of B -> alt(B, fp) over the
 * fingerprints in the table. Moving fingerprints along the walk adds no new edges out of this set, so a
 * free slot outside it cannot be reached however many kicks are allowed.
 */
export function reachableBuckets(filter, slots, start) {
  const b = filter.bucketSize;
  const seen = new Set(start);
  const queue = [...start];
  while (queue.length > 0) {
    const bucket = queue.pop();
    for (let s = 0; s < b; s++) {
      const fp = slots[bucket * b + s];
      if (fp === 0) continue;
      const to = filter.alternate(bucket, fp).alternateIndex;
      if (!seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  return seen;
}

/**
 * The shortest kick-out route from the full buckets `start` to a free slot, searched breadth first over
 * the table as it is: [{ bucket, fingerprint, to }, ...], one entry per kick, or undefined if there is
 * none. A route that visits each bucket once is a valid walk: the residents it moves are still there.
 * The library does not search like this (it looks one step ahead, in the bucket it kicks from only);
 * the page uses it to say when the walk took a longer way than it had to.
 */
export function shortestRoute(filter, slots, start) {
  const b = filter.bucketSize;
  const previous = new Map(start.map((bucket) => [bucket, undefined]));
  let level = [...new Set(start)];
  while (level.length > 0) {
    const next = [];
    for (const bucket of level) {
      for (let s = 0; s < b; s++) {
        const fingerprint = slots[bucket * b + s];
        const to = filter.alternate(bucket, fingerprint).alternateIndex;
        if (previous.has(to)) continue;
        previous.set(to, { bucket, fingerprint, to });
        if (freeSlotsIn(slots, b, to) > 0) {
          const route = [];
          for (let step = previous.get(to); step !== undefined; step = previous.get(step.bucket)) route.unshift(step);
          return route;
        }
        next.push(to);
      }
    }
    level = next;
  }
  return undefined;
}

export function freeSlotsIn(slots, b, bucket) {
  let free = 0;
  for (let s = 0; s < b; s++) if (slots[bucket * b + s] === 0) free++;
  return free;
}

function bucketsWithFreeSlots(slots, b, buckets) {
  const out = [];
  for (let i = 0; i < buckets; i++) if (freeSlotsIn(slots, b, i) > 0) out.push(i);
  return out;
}

function list(numbers) {
  if (numbers.length <= 1) return String(numbers[0] ?? '');
  return `${numbers.slice(0, -1).join(', ')} and ${numbers[numbers.length - 1]}`;
}

/** The three frames every operation starts with: hash, fingerprint and first bucket, second bucket. */
function locateFrames(filter, key, at, listing, slots, seed) {
  const n = filter.bucketCount;
  const bits = filter.fingerprintBits;
  const f = hex(at.fingerprint, bits);
  const frame = (line, candidates, text) => ({ listing, line, slots, candidates, marks: [], arrows: [], hand: null, reach: null, text });
  return [
    frame(1, [], `${listing[0].toUpperCase()}${listing.slice(1)} ${quote(key)}: its hash, XXH3-64 with seed ${seed}, is h = 0x${at.hash.toString(16).padStart(16, '0')}.`),
    frame(2, [at.index], `The fingerprint f = ${f} comes from the hash's low 32 bits (never 0: 0 marks an empty slot), the first bucket i1 = ${at.index} from its high 32 bits.`),
    frame(3, [at.index, at.alternateIndex], `The second bucket comes from i1 and f alone: r(f) = ${at.alternateOffset} is an odd offset computed from f, and i2 = ${modSteps(n, at.index, at.alternateOffset, at.alternateIndex)}.`),
  ];
}

/**
 * One trace step replayed on a copy of the table: the fingerprint that leaves (0 for a placement into a
 * free slot) is replaced by the one that arrives. A semi-sorted bucket keeps its fingerprints in ascending
 * order, so it re-sorts, and the step's slot is where the arriving one is afterwards (as the core records it).
 */
function applyStep(slots, b, step, semiSorted) {
  const out = slots.slice();
  if (!semiSorted) {
    out[step.bucket * b + step.slot] = step.fingerprintIn;
    return out;
  }
  const start = step.bucket * b;
  const values = Array.from(out.slice(start, start + b));
  const leaving = values.indexOf(step.kind === 'place' ? 0 : step.fingerprintOut);
  values[leaving] = step.fingerprintIn;
  values.sort((x, y) => x - y);
  out.set(values, start);
  return out;
}

/**
 * Inserts `key` into the filter and returns { trace, frames }. The frames replay the core's trace on a
 * copy of the table taken before the insert; the last frame's table is checked against the real one.
 */
export function insertFrames(filter, key, seed) {
  const b = filter.bucketSize;
  const n = filter.bucketCount;
  const bits = filter.fingerprintBits;
  const maxKicks = filter.maxKicks;
  const before = filter.slots();
  const at = filter.locate(key);
  const trace = filter.addTraced(key);
  const after = filter.slots();
  const frames = locateFrames(filter, key, at, 'insert', before, seed);
  const both = [at.index, at.alternateIndex];
  const f = (value) => hex(value, bits);
  const semiSorted = filter.semiSorted;
  // Where a step's fingerprint went: in a semi-sorted bucket, its place once the bucket re-sorted.
  const intoSlot = (step) => (semiSorted ? `the bucket, which re-sorts: it is now in slot ${step.slot}` : `slot ${step.slot}`);
  let slots = before;
  const push = (frame) => {
    frames.push({ listing: 'insert', candidates: both, marks: [], arrows: [], hand: null, reach: null, slots, ...frame });
  };
  const steps = trace.steps;

  if (trace.outcome === 'duplicate_limit') {
    push({ line: 6, text: `Both buckets are full, and every one of their ${2 * b} slots holds ${f(at.fingerprint)}: the key was already added ${2 * b} times (or collides with keys that were). A fingerprint may live only in these two buckets, so no kick can make room: the duplicate limit. Nothing changes.` });
  } else if (steps.length === 1 && steps[0].kind === 'place') {
    const [step] = steps;
    slots = applyStep(slots, b, step, semiSorted);
    const which = step.bucket === at.index ? 'i1' : 'i2';
    const also = which === 'i2' ? ` (bucket i1 = ${at.index} is full)` : '';
    push({ line: 5, marks: [[step.bucket, step.slot, 'placed']], text: `Bucket ${which} = ${step.bucket} has a free slot${also}: ${f(at.fingerprint)} goes into ${intoSlot(step)}. The insert is done.` });
  } else {
    const reach = reachableBuckets(filter, before, both);
    const free = bucketsWithFreeSlots(before, b, n);
    const freeOutside = free.filter((i) => !reach.has(i));
    const freeInside = free.filter((i) => reach.has(i));
    const reachText = `Shaded: the ${plural(reach.size, 'bucket')} this walk can reach (from a bucket it can only move a fingerprint to that fingerprint's other bucket).` +
      (freeOutside.length > 0 ? ` Bucket${freeOutside.length > 1 ? 's' : ''} ${list(freeOutside)} ${freeOutside.length > 1 ? 'have' : 'has'} a free slot but ${freeOutside.length > 1 ? 'are' : 'is'} not shaded: no walk from here can get there.` : '');
    if (steps.length === 0) {
      push({ line: 4, reach: [...reach], text: `Buckets ${at.index} and ${at.alternateIndex} are both full. ${reachText}` });
      push({ line: 12, reach: [...reach], text: `Max kicks is 0, so no walk is tried: the insert fails at once and nothing changes.` });
    } else {
      const start = steps[0].bucket;
      const route = shortestRoute(filter, before, both);
      // Said at the end of the walk, when it took more kicks than the table needed.
      const shorter = (kicks) => {
        if (route === undefined || route.length >= kicks) return '';
        const [first] = route;
        const path = route.length === 1
          ? `${f(first.fingerprint)} in bucket ${first.bucket} could have moved to bucket ${first.to}, which had a free slot`
          : `from bucket ${first.bucket}, ${route.map((step) => `${f(step.fingerprint)} to bucket ${step.to}`).join(', then ')}, which had a free slot`;
        const why = first.bucket !== start ? ` It started in bucket ${start}, picked at random, and` : ' It';
        return ` A shorter route existed, of ${plural(route.length, 'kick')}: ${path}. The walk does not search for routes.${why} looks ahead one step only, ` +
          'among the residents of the bucket it kicks from; when none of their other buckets has room, it kicks out a random one.';
      };
      push({ line: 7, reach: [...reach], text: `Buckets ${at.index} and ${at.alternateIndex} are both full, so a kick-out walk starts at bucket ${start} (one of the two, picked by the insert's own random generator). ${reachText}` });
      const visitedAt = new Map([[start, 1]]); // bucket -> the kick at which the walk was first there
      let kicks = 0;
      let cycles = 0;
      for (let i = 0; i < steps.length; i++) {
        const step = steps[i];
        slots = applyStep(slots, b, step, semiSorted);
        if (step.kind === 'kick') {
          kicks++;
          const { alternateOffset: r, alternateIndex: to } = filter.alternate(step.bucket, step.fingerprintOut);
          const lookAhead = freeSlotsIn(slots, b, to) > 0
            ? `It was chosen because its other bucket has a free slot.`
            : `No resident of bucket ${step.bucket} has a free other bucket, so a random one was chosen.`;
          let cycle = '';
          const last = i + 1 === steps.length || steps[i + 1].kind === 'undo';
          if (visitedAt.has(to)) {
            cycles++;
            // The last kick of a failed walk too: its repeat is the one that ends the walk (scenario 3).
            cycle = last
              ? ` Bucket ${to} was already visited at kick ${visitedAt.get(to)}: the walk has gone round a cycle, and this was its last kick.`
              : ` Bucket ${to} was already visited at kick ${visitedAt.get(to)}: the walk is going round a cycle, moving the same fingerprints back and forth.`;
          }
          if (!visitedAt.has(to)) visitedAt.set(to, kicks + 1);
          // The slot marked is where the arriving fingerprint now is; the one it replaced is in hand.
          push({
            line: 9, reach: [...reach], marks: [[step.bucket, step.slot, 'arrived']], arrows: [[step.bucket, to]],
            hand: { fingerprint: step.fingerprintOut, from: step.bucket, to },
            arrived: { fingerprint: step.fingerprintIn, replaced: step.fingerprintOut },
            text: `Kick ${kicks} of at most ${maxKicks}: ${f(step.fingerprintIn)} goes into bucket ${step.bucket}${semiSorted ? ` (which re-sorts: it is now in slot ${step.slot})` : `, slot ${step.slot},`} and evicts ${f(step.fingerprintOut)}, now in hand. ${lookAhead} Its other bucket: r(${f(step.fingerprintOut)}) = ${r}, so ${modSteps(n, step.bucket, r, to)}.${cycle}`,
          });
        } else if (step.kind === 'place') {
          const walk = kicks > 0
            ? ` The walk visited ${plural(visitedAt.size, 'bucket')} in ${plural(kicks, 'kick')}${cycles > 0 ? `, going round a cycle ${plural(cycles, 'time')}` : ''}.`
            : '';
          push({ line: 11, reach: [...reach], marks: [[step.bucket, step.slot, 'placed']], text: `Bucket ${step.bucket} has a free slot: ${f(step.fingerprintIn)} goes into ${intoSlot(step)}. The insert is done.${walk}${shorter(kicks)}` });
        } else {
          const first = i > 0 && steps[i - 1].kind === 'kick';
          const lastUndo = i + 1 === steps.length;
          const opening = first ? `Out of kicks: ${plural(maxKicks, 'kick')} found no free slot, so the walk is undone, last kick first. ` : '';
          const held = lastUndo
            ? `${f(step.fingerprintOut)} is the new key's own fingerprint: it is dropped (nothing is in hand now), and the table is exactly as before.`
            : `${f(step.fingerprintOut)}, which the walk had put there, is in hand again.`;
          let why = '';
          if (lastUndo) {
            why = freeInside.length === 0
              ? freeOutside.length > 0
                ? ` No shaded bucket had a free slot: the free slot${freeOutside.length > 1 ? 's' : ''} in bucket${freeOutside.length > 1 ? 's' : ''} ${list(freeOutside)} ${freeOutside.length > 1 ? 'are' : 'is'} out of this walk's reach, so no number of kicks could have helped.`
                : ' The table has no free slot at all.'
              : ` A shaded bucket (${list(freeInside)}) had a free slot, but the walk did not find it within ${plural(maxKicks, 'kick')}.${shorter(maxKicks)}`;
          }
          // The last undo leaves the new key's fingerprint with no slot: it is dropped, so the drawing shows
          // nothing in hand, as the sentence says.
          push({
            line: 12, reach: [...reach], marks: [[step.bucket, step.slot, 'restored']],
            hand: lastUndo ? null : { fingerprint: step.fingerprintOut, from: step.bucket, to: step.bucket },
            dropped: lastUndo ? step.fingerprintOut : undefined,
            text: `${opening}Bucket ${step.bucket}${semiSorted ? '' : `, slot ${step.slot}`} gets ${f(step.fingerprintIn)} back${semiSorted ? ` (re-sorted: in slot ${step.slot})` : ''}; ${held}${why}`,
          });
        }
      }
    }
  }
  const last = frames[frames.length - 1];
  if (!sameTable(last.slots, after)) {
    frames[frames.length - 1] = { ...last, slots: after, text: `${last.text} (The replay was out of step with the table; this is the real table.)` };
  }
  return { trace, location: at, frames };
}

export function sameTable(a, b) {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function matchesIn(slots, b, bucket, fingerprint) {
  const out = [];
  for (let s = 0; s < b; s++) if (slots[bucket * b + s] === fingerprint) out.push([bucket, s, 'match']);
  return out;
}

/** Looks `key` up and returns { present, frames }; the frames' answer is checked against has(). */
export function lookupFrames(filter, key, seed) {
  const b = filter.bucketSize;
  const slots = filter.slots();
  const at = filter.locate(key);
  const present = filter.has(key);
  const f = hex(at.fingerprint, filter.fingerprintBits);
  const frames = locateFrames(filter, key, at, 'lookup', slots, seed);
  const both = [at.index, at.alternateIndex];
  const first = matchesIn(slots, b, at.index, at.fingerprint);
  const second = matchesIn(slots, b, at.alternateIndex, at.fingerprint);
  const push = (frame) => frames.push({ listing: 'lookup', candidates: both, arrows: [], hand: null, reach: null, slots, ...frame });
  if (first.length > 0) {
    push({ line: 4, marks: first, text: `Bucket i1 = ${at.index} holds ${f} (slot ${first[0][1]}): the answer is "possibly present".` });
  } else {
    push({ line: 4, marks: [], text: `Bucket i1 = ${at.index} does not hold ${f}.` });
    if (second.length > 0) push({ line: 5, marks: second, text: `Bucket i2 = ${at.alternateIndex} holds ${f} (slot ${second[0][1]}): the answer is "possibly present".` });
    else {
      push({ line: 5, marks: [], text: `Bucket i2 = ${at.alternateIndex} does not hold ${f} either.` });
      // What the absence means depends on what the page knows of the key: the caller says it.
      push({ line: 6, marks: [], text: `Neither bucket holds ${f}: the answer is "definitely not present".` });
    }
  }
  if ((first.length + second.length > 0) !== present) throw new Error('the replayed lookup disagrees with has()');
  return { present, location: at, frames };
}

/** Deletes one copy of `key` and returns { removed, freed, frames }; freed is the emptied [bucket, slot]. */
export function deleteFrames(filter, key, seed) {
  const b = filter.bucketSize;
  const before = filter.slots();
  const at = filter.locate(key);
  const removed = filter.delete(key);
  const after = filter.slots();
  const changed = [];
  for (let i = 0; i < before.length; i++) if (before[i] !== after[i]) changed.push(i);
  const semiSorted = filter.semiSorted;
  let freed;
  if (semiSorted) {
    // The bucket re-sorts: one copy is gone, its empty slot is first, the fingerprints below it moved up.
    const buckets = new Set(changed.map((i) => Math.floor(i / b)));
    if (buckets.size !== (removed ? 1 : 0) || (removed && after[[...buckets][0] * b] !== 0)) throw new Error('a delete changed the table unexpectedly');
    freed = removed ? [[...buckets][0], 0] : undefined;
  } else {
    if (changed.length !== (removed ? 1 : 0) || (removed && after[changed[0]] !== 0)) throw new Error('a delete changed the table unexpectedly');
    freed = removed ? [Math.floor(changed[0] / b), changed[0] % b] : undefined;
  }
  const emptied = (slot) => (semiSorted ? `one copy is removed, and the bucket re-sorts: its empty slot is now slot ${slot}` : `slot ${slot} is emptied (one copy removed)`);
  const f = hex(at.fingerprint, filter.fingerprintBits);
  const frames = locateFrames(filter, key, at, 'delete', before, seed);
  const both = [at.index, at.alternateIndex];
  const push = (frame) => frames.push({ listing: 'delete', candidates: both, arrows: [], hand: null, reach: null, slots: before, ...frame });
  if (freed && freed[0] === at.index) {
    push({ line: 4, slots: after, marks: [[freed[0], freed[1], 'freed']], text: `Bucket i1 = ${at.index} holds ${f}: ${emptied(freed[1])}.` });
  } else {
    push({ line: 4, marks: [], text: `Bucket i1 = ${at.index} does not hold ${f}.` });
    if (freed) push({ line: 5, slots: after, marks: [[freed[0], freed[1], 'freed']], text: `Bucket i2 = ${at.alternateIndex} holds ${f}: ${emptied(freed[1])}.` });
    else {
      push({ line: 5, marks: [], text: `Bucket i2 = ${at.alternateIndex} does not hold ${f} either.` });
      push({ line: 6, marks: [], text: `Neither bucket holds ${f}: there is nothing to delete, and nothing changes.` });
    }
  }
  return { removed, freed, location: at, frames };
}
