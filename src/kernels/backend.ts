// Starts a tfjs backend. Unforced, it picks by presence: WebGPU when the browser offers a hardware
// adapter (a software "fallback" adapter is slower than WASM), else WASM with SIMD, else the plain
// JavaScript CPU backend. The page's `auto` does better: it starts both and keeps the one that is
// faster for its model (src/service/backend_probe.ts); the CLI keeps this rule (Node has no
// WebGPU). Any of them can be forced.
//
// WASM threads are off unless asked for. Measured in Chromium on a cross-origin-isolated page
// (tfjs 4.22): tfjs then picks its threaded build, whose pthread workers importScripts() a blob:
// URL, which our CSP (script-src without blob:) blocks, and setBackend never resolves; with
// blob: allowed, the bundled (minified) factory fails in the worker ("e is not defined"); and
// unminified it started but used 1 XNNPACK thread on 2 cores and ran a 512x256x768 matMul
// slower (17-20 ms) than single-threaded SIMD (14 ms). tfjs itself turns threads off in Node.
// Instead our own matmul kernel's large products (training, prefill) can use more cores
// (`threads`, matmul/threads.ts): helper threads with the same kernel on shared memory.
import * as tf from '@tensorflow/tfjs';
import { fusedMultiplyAddActive, matmulThreadCount, useMatmulThreads } from './matmul/kernels.ts';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

/** Backends we run on. */
export type BackendName = 'webgpu' | 'wasm' | 'cpu';

/** What was picked and why. */
export interface BackendInfo {
  name: BackendName;
  /** WebGPU adapter description, when WebGPU was considered. */
  adapter: {
    vendor: string;
    architecture: string;
    device: string;
    description: string;
    isFallback: boolean;
  } | null;
  /** WASM SIMD, when WASM runs. */
  simd: boolean | null;
  /**
   * Whether WASM has relaxed SIMD, so our matmul kernel's fused multiply-add build runs
   * (matmul/kernels.ts).
   */
  fma: boolean | null;
  /** Threads our SIMD kernel's large products run on, when WASM runs (the `threads` option). */
  threads: number | null;
  /** Backends tried before this one, with the reason each was skipped. */
  skipped: string[];
}

/** Options for selectBackend. */
export interface BackendOptions {
  /** Use exactly this backend (an error if it cannot start). */
  force?: BackendName;
  /** Where the browser fetches tfjs' .wasm files (vite.config.ts serves them at /tfjs-wasm/). */
  wasmPaths?: string;
  /**
   * Let tfjs use its threaded WASM build when the page is cross-origin isolated (default false, see
   * above).
   */
  wasmThreads?: boolean;
  /**
   * On WASM, threads for our matmul kernel's large products: a number (1 = none), or 'auto' for
   * the cores there are, at most 4 (default 1). Where threads cannot work (a page that is not
   * cross-origin isolated) it runs on one; BackendInfo.threads says how many it got.
   */
  threads?: number | 'auto';
}

/**
 * The cores this thread can count on: navigator.hardwareConcurrency, or os.availableParallelism()
 * in Node.
 */
async function cores(): Promise<number> {
  const concurrency = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator
    ?.hardwareConcurrency;
  if (concurrency) return concurrency;
  try {
    const os = 'node:os';
    return (
      (await import(/* @vite-ignore */ os)) as typeof import('node:os')
    ).availableParallelism();
  } catch {
    return 1;
  }
}

interface GpuAdapterLike {
  isFallbackAdapter?: boolean;
  info?: {
    vendor?: string;
    architecture?: string;
    device?: string;
    description?: string;
    isFallbackAdapter?: boolean;
  };
}
interface GpuLike {
  requestAdapter(options?: { powerPreference?: string }): Promise<GpuAdapterLike | null>;
}

let wasmPathsSet = false;

/** Selects and initializes a backend; resolves to what runs. */
export async function selectBackend(options: BackendOptions = {}): Promise<BackendInfo> {
  const skipped: string[] = [];
  let adapter: BackendInfo['adapter'] = null;
  const order: BackendName[] = options.force ? [options.force] : ['webgpu', 'wasm', 'cpu'];
  for (const name of order) {
    try {
      if (name === 'webgpu') {
        adapter = await webgpuAdapter();
        if (!adapter)
          throw new Error('no WebGPU adapter (navigator.gpu missing or requestAdapter gave none)');
        if (adapter.isFallback && !options.force)
          throw new Error('the WebGPU adapter is a software fallback');
        await import('@tensorflow/tfjs-backend-webgpu');
      }
      if (name === 'wasm' && !options.wasmThreads)
        tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
      if (name === 'wasm' && tf.env().getBool('IS_BROWSER') && !wasmPathsSet) {
        // a prefix: tfjs appends the file names to it as they are
        const prefix = options.wasmPaths ?? '/tfjs-wasm/';
        setWasmPaths(prefix.endsWith('/') ? prefix : `${prefix}/`);
        wasmPathsSet = true;
      }
      if (!(await tf.setBackend(name))) throw new Error(`tf.setBackend('${name}') failed`);
      await tf.ready();
      const wasm = name === 'wasm';
      const threads =
        options.threads === 'auto'
          ? Math.min(4, await cores())
          : Math.max(1, Math.floor(options.threads ?? 1));
      if (wasm && (threads > 1 || matmulThreadCount() > 1)) {
        try {
          await useMatmulThreads(threads - 1);
        } catch (error) {
          console.warn(`${(error as Error).message}; the matmul kernel runs on one thread.`);
        }
      }
      return {
        name,
        adapter,
        simd: wasm ? ((await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')) as boolean) : null,
        fma: wasm ? fusedMultiplyAddActive() : null,
        threads: wasm ? matmulThreadCount() : null,
        skipped,
      };
    } catch (error) {
      const reason = `${name}: ${error instanceof Error ? error.message : String(error)}`;
      if (options.force) throw new Error(`cannot start the forced backend ${reason}`);
      skipped.push(reason);
    }
  }
  throw new Error(`no tfjs backend could start (${skipped.join('; ')})`);
}

/** The WebGPU adapter the browser offers (no device is made), or null. */
export async function webgpuAdapter(): Promise<BackendInfo['adapter']> {
  const gpu = (globalThis as { navigator?: { gpu?: GpuLike } }).navigator?.gpu;
  if (!gpu) return null;
  const found = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!found) return null;
  const info = found.info ?? {};
  return {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
    isFallback: Boolean(info.isFallbackAdapter ?? found.isFallbackAdapter),
  };
}
