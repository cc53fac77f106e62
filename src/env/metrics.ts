// Counters and latency quantiles of a sandbox pool (what the trainer's Environment panel shows).
import type { SandboxOutcome } from './sandbox.ts';
import type { SandboxMetrics } from './types.ts';

/** Latencies kept for the quantiles: recent enough to track drift, small enough to sort often. */
const WINDOW = 1000;

/** The q-quantile (0..1) of `values` by the nearest-rank method; null when empty. */
export function quantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** Mutable tallies a SandboxPool updates as runs finish and workers come and go. */
export class PoolTallies {
  executions = 0;
  timeouts = 0;
  interrupts = 0;
  rearms = 0;
  terminations = 0;
  crashes = 0;
  recycles = 0;
  respawns = 0;
  lastRespawnMs: number | null = null;
  readonly coldStartsMs: number[] = [];
  readonly restoreStartsMs: number[] = [];
  private readonly latenciesMs: number[] = [];

  /** Counts one finished run. */
  record(outcome: SandboxOutcome): void {
    this.executions += 1;
    this.latenciesMs.push(outcome.durationMs);
    if (this.latenciesMs.length > WINDOW) this.latenciesMs.shift();
    if (outcome.kind === 'interrupted') {
      this.timeouts += 1;
      this.interrupts += 1;
    }
    if (outcome.kind === 'interrupted' || outcome.kind === 'terminated')
      this.rearms += outcome.rearms;
    if (outcome.kind === 'terminated') {
      this.timeouts += 1;
      this.terminations += 1;
    }
    if (outcome.kind === 'crashed') {
      this.crashes += 1;
      this.terminations += 1;
    }
    if (outcome.kind === 'done' && outcome.raw.fatal) {
      this.crashes += 1;
      this.terminations += 1;
    }
  }

  medianMs(): number {
    return quantile(this.latenciesMs, 0.5) ?? 0;
  }

  p95Ms(): number {
    return quantile(this.latenciesMs, 0.95) ?? 0;
  }

  /** The counters and quantiles of SandboxMetrics (the pool adds its workers' state). */
  counts(): Omit<SandboxMetrics, 'queued' | 'busy' | 'idle' | 'spares' | 'interruptible'> {
    return {
      executions: this.executions,
      medianExecMs: this.medianMs(),
      p95ExecMs: this.p95Ms(),
      timeouts: this.timeouts,
      interrupts: this.interrupts,
      rearms: this.rearms,
      terminations: this.terminations,
      crashes: this.crashes,
      recycles: this.recycles,
      respawns: this.respawns,
      lastRespawnMs: this.lastRespawnMs,
      medianColdStartMs: quantile(this.coldStartsMs, 0.5),
      medianRestoreStartMs: quantile(this.restoreStartsMs, 0.5),
    };
  }
}
