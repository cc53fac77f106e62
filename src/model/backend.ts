// Picks the tfjs backend: WebGPU when the browser offers a hardware adapter (a software
// "fallback" adapter is slower than WASM), else WASM (SIMD, and threads when the page is
// cross-origin isolated), else the plain JavaScript CPU backend. Any of them can be forced.
// tfjs turns WASM threads off in Node, so Node runs single-threaded WASM.
import * as tf from '@tensorflow/tfjs';
import { getThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

/** Backends we run on. */
export type BackendName = 'webgpu' | 'wasm' | 'cpu';

/** What was picked and why. */
export interface BackendInfo {
  name: BackendName;
  /** WebGPU adapter description, when WebGPU was considered. */
  adapter: { vendor: string; architecture: string; device: string; description: string; isFallback: boolean } | null;
  /** WASM SIMD and thread count, when WASM runs. */
  simd: boolean | null;
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
}

interface GpuAdapterLike {
  isFallbackAdapter?: boolean;
  info?: { vendor?: string; architecture?: string; device?: string; description?: string; isFallbackAdapter?: boolean };
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
        if (!adapter) throw new Error('no WebGPU adapter (navigator.gpu missing or requestAdapter gave none)');
        if (adapter.isFallback && !options.force) throw new Error('the WebGPU adapter is a software fallback');
        await import('@tensorflow/tfjs-backend-webgpu');
      }
      if (name === 'wasm' && tf.env().getBool('IS_BROWSER') && !wasmPathsSet) {
        setWasmPaths(options.wasmPaths ?? '/tfjs-wasm/');
        wasmPathsSet = true;
      }
      if (!(await tf.setBackend(name))) throw new Error(`tf.setBackend('${name}') failed`);
      await tf.ready();
      const wasm = name === 'wasm';
      return {
        name,
        adapter,
        simd: wasm ? await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT') as boolean : null,
        threads: wasm ? getThreadsCount() : null,
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

async function webgpuAdapter(): Promise<BackendInfo['adapter']> {
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
