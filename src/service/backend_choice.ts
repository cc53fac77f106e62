// Which backend the page's `auto` runs a model on (docs/architecture.md §3): chosen by measurement,
// not by presence. A software WebGPU adapter, or a weak GPU beside a strong CPU, is slower than
// WASM, and only a run at the model's own shapes tells. The measuring is injected
// (backend_probe.ts does it with tfjs), so the rules here are tested with made-up timings.
import type { BackendName } from '../kernels/backend.ts';

/** The backends `auto` chooses between. */
export type ProbedBackend = 'webgpu' | 'wasm';

/** One backend's probe figures, ms per token; null where its probe failed. */
export interface BackendTiming {
  backend: ProbedBackend;
  /** What the choice compares: a batch decoding step's and a training pass's share of a token. */
  msPerToken: number | null;
  decodeMsPerToken: number | null;
  trainMsPerToken: number | null;
  /**
   * The probe ran out of time before its training pass: msPerToken is what decoding alone costs,
   * a lower bound, and this backend cannot win.
   */
  lowerBound?: boolean;
  /** Why the probe failed (it threw, ran out of time, or lost its adapter). */
  error?: string;
}

/** The probe's verdict, as the page shows and remembers it. */
export interface BackendProbe {
  /** What the verdict holds for: the model, the WebGPU adapter and the WASM threads (probeKey). */
  key: string;
  chosen: ProbedBackend;
  /** In the order measured. */
  timings: BackendTiming[];
  /** The probe's wall time, set-up included, ms. */
  milliseconds: number;
  /** True when the verdict was measured on an earlier visit and reused. */
  remembered: boolean;
}

/**
 * The key a verdict is remembered under: another model, another adapter (a driver update renames
 * it) or another thread count can change which backend is faster.
 */
export function probeKey(model: string, adapter: string | null, threads: number): string {
  return JSON.stringify([model, adapter ?? 'no adapter', threads]);
}

/**
 * The backend with the lowest ms per token among those whose probe finished; WASM when none did.
 */
export function fasterBackend(timings: readonly BackendTiming[]): ProbedBackend {
  let best: BackendTiming | null = null;
  for (const timing of timings) {
    if (timing.lowerBound || timing.msPerToken === null || !Number.isFinite(timing.msPerToken))
      continue;
    if (!best || timing.msPerToken < best.msPerToken!) best = timing;
  }
  return best?.backend ?? 'wasm';
}

/** How the backend was decided. */
export type BackendDecision =
  /** Chosen by hand (the run link's or the form's `backend`): no probe. */
  | { kind: 'manual'; backend: BackendName }
  /** Only WASM is there (no WebGPU adapter): nothing to compare. */
  | { kind: 'only'; backend: 'wasm' }
  | { kind: 'probe'; probe: BackendProbe };

/** What decideBackend needs. */
export interface DecisionRequest {
  requested: BackendName | 'auto';
  key: string;
  /** Earlier verdicts by key (the page's settings store). */
  remembered: Readonly<Record<string, BackendProbe>>;
  /** The backends that can be probed here, in the order to measure them. */
  available: readonly ProbedBackend[];
  /** Runs one backend's probe; may throw (counted as a failure). */
  measure(backend: ProbedBackend): Promise<BackendTiming>;
  now?: () => number;
}

/**
 * Decides the backend: a manual choice wins, then a verdict remembered for this key, then a fresh
 * probe of each available backend, where the faster wins and a failed probe loses to WASM.
 */
export async function decideBackend(request: DecisionRequest): Promise<BackendDecision> {
  if (request.requested !== 'auto') return { kind: 'manual', backend: request.requested };
  const known = request.remembered[request.key];
  if (known) return { kind: 'probe', probe: { ...known, key: request.key, remembered: true } };
  if (!request.available.includes('webgpu')) return { kind: 'only', backend: 'wasm' };
  const now = request.now ?? (() => performance.now());
  const start = now();
  const timings: BackendTiming[] = [];
  for (const backend of request.available) {
    try {
      timings.push(await request.measure(backend));
    } catch (error) {
      timings.push(failedTiming(backend, error));
    }
  }
  const probe: BackendProbe = {
    key: request.key,
    chosen: fasterBackend(timings),
    timings,
    milliseconds: now() - start,
    remembered: false,
  };
  return { kind: 'probe', probe };
}

/** A timing that records a failure. */
export function failedTiming(backend: ProbedBackend, error: unknown): BackendTiming {
  return {
    backend,
    msPerToken: null,
    decodeMsPerToken: null,
    trainMsPerToken: null,
    error: error instanceof Error ? error.message : String(error),
  };
}

const STORE_KEY = 'backendProbes';
const KEPT = 20;

/** A small string store (the page's localStorage). */
export interface ProbeStore {
  get(key: string): string | null;
  set(key: string, value: string): void;
}

/** The verdicts remembered in `store` (none if it holds nothing readable). */
export function rememberedProbes(store: ProbeStore | undefined): Record<string, BackendProbe> {
  try {
    const parsed: unknown = JSON.parse(store?.get(STORE_KEY) ?? '{}');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, BackendProbe>)
      : {};
  } catch {
    return {};
  }
}

/** Remembers a fresh verdict, keeping the newest KEPT. */
export function rememberProbe(store: ProbeStore | undefined, probe: BackendProbe): void {
  if (!store || probe.remembered) return;
  const entries = Object.entries(rememberedProbes(store)).filter(([key]) => key !== probe.key);
  entries.push([probe.key, probe]);
  store.set(STORE_KEY, JSON.stringify(Object.fromEntries(entries.slice(-KEPT))));
}
