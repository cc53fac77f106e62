// This device's speed for the page's cost estimate (src/model_files/step_cost.ts), on the backend
// the run uses. On WASM it is the calibration (src/model_files/step_calibration.ts: rates and fixed
// costs fitted to steps measured on a reference machine, the rates scaled by the kernels' threads):
// the same figure on every load. Elsewhere (WebGPU, the plain JavaScript CPU backend) a short
// measurement, run in the trainer worker when the page opens:
//   gflops        a training-shaped product (on WebGPU and CPU tf.matMul), the best of repeated
//                 calls
//   bandwidthGBs  on WebGPU a sum over a 64 MiB tensor; on CPU a streaming read of 64 MiB (past a
//                 laptop's caches) by a WebAssembly SIMD loop on one thread (kernels/simd/
//                 stream_read.ts, the bench's bandwidth kernel), the best of a few passes
// Half a second (PROBE_BUDGET_MS, set-up included): the estimate needs the order of magnitude, not
// the bench's precision; it is not calibrated against measured steps (no GPU measurement yet), and
// the page says so. On WASM the probe read 50-87 GFLOP/s idle and 20-35 with other work on the
// cores of the reference VM, which is why WASM's estimate no longer comes from it.
import * as tf from '@tensorflow/tfjs';
import { instantiateStreamRead } from '../kernels/simd/stream_read.ts';
import { matMul2d } from '../kernels/matmul/dispatch.ts';
import { matmulThreadCount } from '../kernels/matmul/kernels.ts';
import type { DeviceSpeed } from '../model_files/step_cost.ts';
import { REFERENCE_MACHINE, wasmSpeed } from '../model_files/step_calibration.ts';

/** This device's speed as the estimate counts it, and where it comes from. */
export interface SpeedMeasurement extends DeviceSpeed {
  /** The backend it is for (tf.getBackend()). */
  backend: string;
  /**
   * 'calibrated': WASM's rates and fixed costs from steps measured on `reference`, scaled by
   * `threads`; 'probe': measured now, rates only.
   */
  basis?: 'calibrated' | 'probe';
  /** The calibration's reference machine (basis 'calibrated'). */
  reference?: string;
  /** Our kernels' threads (WASM). */
  threads?: number;
  /** How long the probe took, ms (0 for a calibration). */
  milliseconds: number;
}

/** The probe's budget, ms, set-up included: the product until half of it, then the read. */
export const PROBE_BUDGET_MS = 500;

const STREAM_BYTES = 64 << 20;

/** GB/s of a streaming read, the best of passes until `deadline` (performance.now()). */
function cpuBandwidth(deadline: number): number {
  const memory = new WebAssembly.Memory({ initial: STREAM_BYTES / 65536 });
  new Float32Array(memory.buffer).fill(1); // touch every page, so the passes read real memory
  const read = instantiateStreamRead(memory);
  let best = Infinity;
  for (let pass = 0; pass < 20 && (pass < 2 || performance.now() < deadline); pass++) {
    const t0 = performance.now();
    read(0, STREAM_BYTES);
    best = Math.min(best, performance.now() - t0);
  }
  return STREAM_BYTES / Math.max(best, 1e-3) / 1e6;
}

/** GB/s of a sum over a 64 MiB tensor on the GPU, the best of passes until `deadline`. */
async function gpuBandwidth(deadline: number): Promise<number> {
  const x = tf.fill([STREAM_BYTES / 4], 1);
  try {
    let best = Infinity;
    for (let pass = 0; pass < 10 && (pass < 2 || performance.now() < deadline); pass++) {
      const t0 = performance.now();
      const total = tf.sum(x);
      await total.data();
      total.dispose();
      if (pass > 0) best = Math.min(best, performance.now() - t0); // the first compiles
    }
    return STREAM_BYTES / Math.max(best, 1e-3) / 1e6;
  } finally {
    x.dispose();
  }
}

/**
 * GFLOP/s of an (m, k) @ (k, n) product through matMul2d (WASM: a training step's kernel, with
 * its helper threads), the best of calls until `deadline` after one warm-up call.
 */
async function productSpeed(deadline: number): Promise<number> {
  const backend = tf.getBackend();
  // WASM: within the fused kernel's reach (k n <= 2^19) and rows enough for its threads; the
  // plain JavaScript CPU backend a small one (~10 ms), so a few calls fit the budget
  const [m, k, n] =
    backend === 'webgpu'
      ? [1024, 1024, 1024]
      : backend === 'wasm'
        ? [256, 512, 512]
        : [64, 256, 256];
  const a = tf.randomUniform([m, k], -1, 1, 'float32', 1) as tf.Tensor2D;
  const b = tf.randomUniform([k, n], -1, 1, 'float32', 2) as tf.Tensor2D;
  try {
    const once = async () => {
      const t0 = performance.now();
      const c = tf.tidy(() => matMul2d(a, b));
      await c.data();
      c.dispose();
      return performance.now() - t0;
    };
    await once(); // warm-up: kernels compiled, helper memory grown
    let best = Infinity;
    for (let call = 0; call < 100 && (call < 1 || performance.now() < deadline); call++)
      best = Math.min(best, await once());
    return (2 * m * k * n) / Math.max(best, 1e-3) / 1e6;
  } finally {
    a.dispose();
    b.dispose();
  }
}

/** Measures this device's product speed and memory bandwidth on the current tfjs backend. */
export async function measureSpeed(budgetMs = PROBE_BUDGET_MS): Promise<SpeedMeasurement> {
  const start = performance.now();
  const backend = tf.getBackend();
  // the set-up (a warm-up product, touching 64 MiB) comes on top of the loops' deadlines
  const gflops = await productSpeed(start + budgetMs / 2);
  const bandwidthGBs =
    backend === 'webgpu' ? await gpuBandwidth(start + budgetMs) : cpuBandwidth(start + budgetMs);
  return { backend, gflops, bandwidthGBs, milliseconds: performance.now() - start };
}

/**
 * The speed the estimate counts on the current backend: WASM's calibration with the kernels'
 * threads (no measurement: the same on every load), else the probe.
 */
export async function deviceSpeed(budgetMs = PROBE_BUDGET_MS): Promise<SpeedMeasurement> {
  const backend = tf.getBackend();
  if (backend === 'wasm') {
    const threads = matmulThreadCount();
    return {
      backend,
      ...wasmSpeed(threads),
      basis: 'calibrated',
      reference: REFERENCE_MACHINE,
      threads,
      milliseconds: 0,
    };
  }
  return { ...(await measureSpeed(budgetMs)), basis: 'probe' };
}
