// The player: shows one frame of the current operation at a time, with step back and forward, restart,
// jump to the end, a scrubber, play/pause and speed. It knows nothing about filters: `show(frame)` draws.
import { $ } from './text.js';

export class Player {
  constructor(show) {
    this.show = show;
    this.frames = [];
    this.index = 0;
    this.timer = undefined;
    $('restart').addEventListener('click', () => this.go(0));
    $('back').addEventListener('click', () => this.go(this.index - 1));
    $('step').addEventListener('click', () => this.go(this.index + 1));
    $('end').addEventListener('click', () => this.go(this.frames.length - 1));
    $('play').addEventListener('click', () => (this.timer ? this.pause() : this.play()));
    $('scrubber').addEventListener('input', () => this.go(Number($('scrubber').value), { keepPlaying: false }));
    $('speed').addEventListener('input', () => {
      if (this.timer) {
        this.pause();
        this.play();
      }
    });
    $('player').addEventListener('keydown', (event) => {
      if (event.target instanceof HTMLInputElement) return; // the range inputs use the arrow keys themselves
      if (event.key === 'ArrowRight') this.go(this.index + 1);
      else if (event.key === 'ArrowLeft') this.go(this.index - 1);
      else if (event.key === 'Home') this.go(0);
      else if (event.key === 'End') this.go(this.frames.length - 1);
      else return;
      event.preventDefault();
    });
  }

  /** A new operation: its frames, shown from the first. */
  load(frames) {
    this.pause();
    this.frames = frames;
    $('scrubber').max = String(Math.max(0, frames.length - 1));
    this.go(0);
  }

  get atEnd() {
    return this.index >= this.frames.length - 1;
  }

  /** Shows the last frame: the table as the real filter now has it. */
  finish() {
    this.pause();
    if (this.frames.length > 0) this.go(this.frames.length - 1);
  }

  go(index, { keepPlaying = true } = {}) {
    if (this.frames.length === 0) return this.controls();
    if (!keepPlaying) this.pause();
    this.index = Math.max(0, Math.min(this.frames.length - 1, index));
    this.show(this.frames[this.index]);
    if (this.atEnd) this.pause();
    this.controls();
  }

  play() {
    if (this.frames.length === 0) return;
    if (this.atEnd) this.go(0);
    const interval = 2400 / Number($('speed').value);
    this.timer = setInterval(() => this.go(this.index + 1), interval);
    this.controls();
  }

  pause() {
    clearInterval(this.timer);
    this.timer = undefined;
    this.controls();
  }

  controls() {
    const n = this.frames.length;
    const focused = document.activeElement;
    $('step-counter').textContent = n === 0 ? 'Nothing to replay yet.' : `Step ${this.index + 1} of ${n}`;
    $('restart').disabled = n === 0 || this.index === 0;
    $('back').disabled = n === 0 || this.index === 0;
    $('step').disabled = n === 0 || this.atEnd;
    $('end').disabled = n === 0 || this.atEnd;
    $('play').disabled = n <= 1;
    $('play').textContent = this.timer ? 'Pause' : 'Play';
    $('play').setAttribute('aria-pressed', this.timer ? 'true' : 'false');
    $('scrubber').disabled = n <= 1;
    $('scrubber').value = String(this.index);
    // A button that disables itself (» at the end, « at the start) would drop the focus to the page, and
    // the arrow keys, which the player only hears from inside, with it: the focus moves to a neighbour.
    if (focused instanceof HTMLButtonElement && focused.disabled && $('player').contains(focused)) {
      const atStart = focused.id === 'restart' || focused.id === 'back';
      const next = (atStart ? ['step', 'end', 'play'] : ['back', 'restart', 'play']).map((id) => $(id)).find((b) => !b.disabled);
      next?.focus();
    }
  }
}
