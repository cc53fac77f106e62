/// <reference types="@webgpu/types" />
// Counts everything the page asks of WebGPU, whoever asks (our kernels, tfjs): GPU programs
// dispatched, queue submits, bytes mapped for reading, and objects created (buffers, bind groups,
// pipelines, shader modules, layouts, query sets; not command encoders, which a submit needs). By
// wrapping the WebGPU classes' prototype methods, so a test or the bench can assert what decoding
// a token costs and that nothing is made after warm-up. For tests and the bench only.

/** What WebGPU was asked for since the census started (or was last reset). */
export interface GpuTally {
  dispatches: number;
  submits: number;
  readbackBytes: number;
  created: number;
}

/** A running census: its tally, reset() and stop() (unwraps the prototypes). */
export interface GpuCensus {
  readonly tally: GpuTally;
  reset(): void;
  stop(): void;
}

type Proto = Record<string, unknown>;

/**
 * Starts counting. Needs the WebGPU classes as globals (a browser, or Dawn's globals in Node).
 * Only one census at a time.
 */
export function startGpuCensus(): GpuCensus {
  const scope = globalThis as unknown as Record<string, { prototype: Proto } | undefined>;
  const tally: GpuTally = { dispatches: 0, submits: 0, readbackBytes: 0, created: 0 };
  const undo: (() => void)[] = [];
  const wrap = (
    className: string,
    method: string,
    count: (this: unknown, args: unknown[]) => void,
  ) => {
    const proto = scope[className]?.prototype;
    const original = proto?.[method] as ((...args: unknown[]) => unknown) | undefined;
    if (!proto || typeof original !== 'function') return;
    proto[method] = function (this: unknown, ...args: unknown[]) {
      count.call(this, args);
      return original.apply(this, args);
    };
    undo.push(() => {
      proto[method] = original;
    });
  };
  for (const method of [
    'createBuffer',
    'createBindGroup',
    'createBindGroupLayout',
    'createPipelineLayout',
    'createComputePipeline',
    'createComputePipelineAsync',
    'createShaderModule',
    'createQuerySet',
    'createTexture',
  ])
    wrap('GPUDevice', method, () => {
      tally.created++;
    });
  wrap('GPUComputePassEncoder', 'dispatchWorkgroups', () => {
    tally.dispatches++;
  });
  wrap('GPUComputePassEncoder', 'dispatchWorkgroupsIndirect', () => {
    tally.dispatches++;
  });
  wrap('GPUQueue', 'submit', () => {
    tally.submits++;
  });
  wrap('GPUBuffer', 'mapAsync', function (this: unknown, args: unknown[]) {
    const [mode, offset, size] = args as [number, number | undefined, number | undefined];
    const whole = (this as { size?: number } | undefined)?.size; // when no size is given
    if (mode === 1) tally.readbackBytes += size ?? (whole ?? 0) - (offset ?? 0);
  });
  return {
    tally,
    reset() {
      tally.dispatches = 0;
      tally.submits = 0;
      tally.readbackBytes = 0;
      tally.created = 0;
    },
    stop() {
      for (const u of undo.splice(0)) u();
    },
  };
}
