// Short, readable numbers and labels for the page (pure, tested in Node).
import type { BackendInfo } from '../../kernels/backend.ts';
import type { BackendProbe, BackendTiming } from '../../service/backend_choice.ts';

/**
 * The backend as the header shows it: "WebGPU · NVIDIA …", "WASM · SIMD + FMA · 1 thread", "CPU".
 */
export function backendLabel(info: BackendInfo): string {
  if (info.name === 'webgpu') {
    const adapter = info.adapter;
    const name = adapter
      ? adapter.description ||
        [adapter.vendor, adapter.architecture, adapter.device].filter(Boolean).join(' ')
      : '';
    return `WebGPU${name ? ` · ${name}` : ''}${adapter?.isFallback ? ' (software)' : ''}`;
  }
  if (info.name === 'wasm') {
    const parts = ['WASM'];
    if (info.simd) parts.push(info.fma ? 'SIMD + FMA' : 'SIMD');
    if (info.threads !== null)
      parts.push(info.threads > 1 ? `${info.threads} threads` : '1 thread');
    return parts.join(' · ');
  }
  return 'CPU (plain JavaScript)';
}

const probedName = { webgpu: 'WebGPU', wasm: 'WASM' } as const;
/** Milliseconds to 2 significant digits: 0.7, 4.1, 12. */
const ms = (value: number) => String(Number(value.toPrecision(2)));

/**
 * Why `auto` runs this backend, after its label in the header: "— chosen: 0.7 ms/token vs WebGPU
 * 4.1 ms/token", "(remembered)" when an earlier visit measured it.
 */
export function backendProbeText(probe: BackendProbe): string {
  const chosen = probe.timings.find((t) => t.backend === probe.chosen);
  const others = probe.timings.filter((t) => t.backend !== probe.chosen);
  const figure = (t: BackendTiming | undefined) =>
    t?.msPerToken == null ? 'failed' : `${t.lowerBound ? 'over ' : ''}${ms(t.msPerToken)} ms/token`;
  const rest = others.map((t) => `${probedName[t.backend]} ${figure(t)}`).join(', ');
  return `— chosen: ${figure(chosen)}${rest ? ` vs ${rest}` : ''}${probe.remembered ? ' (remembered)' : ''}`;
}

/** The probe's details, for the header's tooltip. */
export function backendProbeDetails(probe: BackendProbe): string {
  const lines = probe.timings.map((t) =>
    t.msPerToken == null
      ? `${probedName[t.backend]}: failed (${t.error ?? 'no figure'})`
      : t.lowerBound
        ? `${probedName[t.backend]}: out of time ${t.decodeMsPerToken == null ? 'before one decoding step ended' : `after decoding (${ms(t.decodeMsPerToken)} ms/token), before training`}`
        : `${probedName[t.backend]}: ${ms(t.decodeMsPerToken ?? 0)} ms/token decoding + ${ms(t.trainMsPerToken ?? 0)} training`,
  );
  return [
    `Auto chose ${probedName[probe.chosen]}: the faster on a cut-down copy of this model at the run's batch, measured in ${(probe.milliseconds / 1000).toFixed(1)} s${probe.remembered ? ' on an earlier visit and remembered for this model and device' : ''}.`,
    ...lines,
    'Set Backend under Run to choose by hand.',
  ].join('\n');
}

/** A metric value: 3 significant digits, small numbers in exponent form, null as a dash. */
export function formatValue(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  if (value === 0) return '0';
  const magnitude = Math.abs(value);
  if (magnitude < 1e-3) return value.toExponential(1);
  if (magnitude >= 1000) return value.toFixed(0);
  return String(Number(value.toPrecision(3)));
}

/** A signed advantage: "+0.87", "−0.50", "0". */
export function formatSigned(value: number): string {
  if (Math.abs(value) < 5e-3) return '0';
  return `${value > 0 ? '+' : '−'}${Math.abs(value).toFixed(2)}`;
}

/** A time of day for "saved at". */
export function formatClock(ms: number): string {
  const date = new Date(ms);
  return `${date.toLocaleDateString()} ${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
}
