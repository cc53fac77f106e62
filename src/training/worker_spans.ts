// The rollout worker's timeline spans (its generation rounds and its sandbox calls), streamed to
// the trainer's thread as they open and close, in wall-clock time so that two threads compare.
import type { SpanKind } from '../rl/timeline.ts';

/** A span in wall-clock milliseconds (performance.timeOrigin + performance.now()). */
export interface WallSpan {
  lane: string;
  kind: SpanKind;
  startWallMs: number;
  endWallMs: number;
}

/** A span opening (`endWallMs` null) or closing, as the worker streams them. */
export interface SpanEvent extends Omit<WallSpan, 'endWallMs'> {
  id: number;
  endWallMs: number | null;
}

/** Wall-clock milliseconds, comparable across threads. */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

/** Keeps streamed spans; one still open counts as running until now. */
export class SpanLog {
  private readonly spans = new Map<number, SpanEvent>();

  /** Records an opening or a closing. */
  add(event: SpanEvent): void {
    this.spans.set(event.id, event);
  }

  /** Ends every open span now (its worker died). */
  closeOpen(now = wallNow()): void {
    for (const s of this.spans.values()) if (s.endWallMs === null) s.endWallMs = now;
  }

  /** Spans that end after `sinceWallMs` (open ones end now); those over a minute older go. */
  since(sinceWallMs: number, now = wallNow()): WallSpan[] {
    const out: WallSpan[] = [];
    for (const [id, s] of this.spans) {
      const end = s.endWallMs ?? now;
      if (s.endWallMs !== null && end < sinceWallMs - 60_000) this.spans.delete(id);
      else if (end > sinceWallMs) out.push({ ...s, endWallMs: end });
    }
    return out;
  }
}
