// Short, readable numbers and labels for the page (pure, tested in Node).
import type { BackendInfo } from '../../kernels/backend.ts';

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
