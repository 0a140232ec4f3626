/**
 * Per-hunk review of an `edit_review`, from rift's own `segments` (no diff is
 * computed here). Plain TypeScript, no `vscode` import.
 *
 * Semantics match rift's `core/permissions/hunks.py`: segments split on "\n" exactly, so a
 * trailing newline is a final empty line; each change segment is one hunk;
 * the reviewed content is every unchanged run plus, per change, the new side
 * when accepted or the old side when rejected, joined with "\n". A missing
 * entry in the accept mask counts as rejected, so a short mask never invents
 * content.
 */

import { Segment } from './events';

export type { Segment } from './events';

/** Segments of a review; an older rift without `segments` gets one whole-file hunk. */
export function segmentsOf(review: { old: string; new: string; segments?: unknown }): Segment[] {
  if (Array.isArray(review.segments) && review.segments.every(isSegment)) {
    return review.segments as Segment[];
  }
  if (review.old === review.new) {
    return [{ same: true, lines: review.old.split('\n') }];
  }
  return [
    {
      same: false,
      old: review.old ? review.old.split('\n') : [],
      new: review.new ? review.new.split('\n') : [],
    },
  ];
}

function isSegment(value: unknown): value is Segment {
  if (!value || typeof value !== 'object') {
    return false;
  }
  const s = value as Record<string, unknown>;
  const lines = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
  return s.same === true ? lines(s.lines) : s.same === false && lines(s.old) && lines(s.new);
}

/** The number of hunks (change segments). */
export function hunkCount(segments: readonly Segment[]): number {
  return segments.filter((s) => !s.same).length;
}

/** Rebuild the file from the hunks kept: `accept[i]` picks the new side of hunk i. */
export function reassemble(segments: readonly Segment[], accept: readonly boolean[]): string {
  return layout(segments, accept).text;
}

export interface HunkSpan {
  /** Hunk index (0-based, in file order). */
  hunk: number;
  /** 0-based first line of the hunk in the laid-out document. */
  start: number;
  /** Lines it occupies there (0 for a deletion that was accepted). */
  count: number;
  accepted: boolean;
}

/**
 * The reviewed document and where each hunk sits in it. `side` "result" is
 * the reassembled text (what Apply writes); "old" is the file before.
 */
export function layout(
  segments: readonly Segment[],
  accept: readonly boolean[],
  side: 'result' | 'old' = 'result',
): { text: string; spans: HunkSpan[] } {
  const lines: string[] = [];
  const spans: HunkSpan[] = [];
  let hunk = 0;
  for (const segment of segments) {
    if (segment.same) {
      lines.push(...segment.lines);
      continue;
    }
    const accepted = hunk < accept.length && accept[hunk] === true;
    const chosen = side === 'old' || !accepted ? segment.old : segment.new;
    spans.push({ hunk, start: lines.length, count: chosen.length, accepted });
    lines.push(...chosen);
    hunk += 1;
  }
  return { text: lines.join('\n'), spans };
}

/** The reviewer's choice per hunk, starting from all accepted. */
export class HunkSelection {
  readonly segments: readonly Segment[];
  readonly accept: boolean[];

  constructor(segments: readonly Segment[], initial = true) {
    this.segments = segments;
    this.accept = new Array(hunkCount(segments)).fill(initial);
  }

  get total(): number {
    return this.accept.length;
  }

  get accepted(): number {
    return this.accept.filter(Boolean).length;
  }

  toggle(hunk: number): boolean {
    if (hunk >= 0 && hunk < this.accept.length) {
      this.accept[hunk] = !this.accept[hunk];
    }
    return this.accept[hunk] ?? false;
  }

  set(hunk: number, value: boolean): void {
    if (hunk >= 0 && hunk < this.accept.length) {
      this.accept[hunk] = value;
    }
  }

  setAll(value: boolean): void {
    this.accept.fill(value);
  }

  /** The text Apply sends back as `edit_decision.content`. */
  content(): string {
    return reassemble(this.segments, this.accept);
  }

  spans(side: 'result' | 'old' = 'result'): HunkSpan[] {
    return layout(this.segments, this.accept, side).spans;
  }

  /** "Apply k/n hunks". */
  applyLabel(): string {
    return `Apply ${this.accepted}/${this.total} hunk${this.total === 1 ? '' : 's'}`;
  }
}
