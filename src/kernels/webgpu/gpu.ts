/// <reference types="@webgpu/types" />
// The GPUDevice our WebGPU kernels share with tfjs's WebGPU backend, the GPU buffers behind its
// tensors, and the counters that show what a decoding step costs (GPU programs dispatched, queue
// submits, bytes read back, WebGPU objects created). Why share tfjs's device: the frozen 16-bit
// weights are tfjs tensors (so tfjs's memory accounting and disposal cover them, and the training
// kernels read them), and the decoding engine binds the same buffers: one copy of every weight.
import * as tf from '@tensorflow/tfjs';

/** The parts of tfjs's WebGPU backend we use (its public class, without the import cost). */
export interface WebGpuBackendLike {
  device: GPUDevice;
  queue: GPUQueue;
  tensorMap: { get(dataId: object): { resource?: unknown } | undefined };
  /** Ends the compute pass tfjs keeps open between its dispatches (if one is open). */
  endComputePassEncoder(): void;
  /** Submits the commands tfjs has recorded but not yet sent (there must be some). */
  submitQueue(): void;
  /** Makes sure a tensor's values are in a GPU buffer. */
  uploadToGPU(dataId: object): void;
}

/** What the WebGPU kernels did, for tests and the bench. */
export const gpuCounts = {
  /** GPU programs dispatched by our kernels. */
  dispatches: 0,
  /** Queue submits by our kernels. */
  submits: 0,
  /** Bytes copied back to JavaScript by our kernels. */
  readbackBytes: 0,
  /** Buffers, bind groups, pipelines, layouts and shader modules our kernels created. */
  objectsCreated: 0,
  /** Decoding steps the engine ran (tokens for every live sequence). */
  decodeSteps: 0,
};

/** Zeroes the counters. */
export function resetGpuCounts(): void {
  for (const key of Object.keys(gpuCounts) as (keyof typeof gpuCounts)[]) gpuCounts[key] = 0;
}

/** tfjs's WebGPU backend when it is the active one, else null. */
export function activeWebGpu(): WebGpuBackendLike | null {
  if (tf.getBackend() !== 'webgpu') return null;
  const backend = tf.backend() as unknown as WebGpuBackendLike;
  watchErrors(backend.device);
  return backend;
}

/**
 * WebGPU reports a validation error on the device, not as an exception, and drops the work it
 * concerns: a wrong number, not a crash. Every such error on a device we use is kept here (the
 * first 20 messages), so tests and the bench can assert there were none.
 */
export const gpuErrors: { count: number; messages: string[] } = { count: 0, messages: [] };
const watched = new WeakSet<GPUDevice>();
function watchErrors(device: GPUDevice): void {
  if (watched.has(device) || typeof device.addEventListener !== 'function') return;
  watched.add(device);
  device.addEventListener('uncapturederror', (event) => {
    gpuErrors.count++;
    if (gpuErrors.messages.length < 20)
      gpuErrors.messages.push((event as GPUUncapturedErrorEvent).error.message);
  });
}

/**
 * Tests and the bench: take one layout whatever the adapter ('hardware' on a software adapter runs
 * the GPU layout there, slowly, to check its numbers).
 */
export const kernelLayout: { force: 'software' | 'hardware' | null } = { force: null };

/**
 * Whether the backend's adapter is a software one (SwiftShader, llvmpipe): its compute shaders run
 * on the CPU, where a workgroup barrier is a context switch, so our kernels take their
 * barrier-free layouts there.
 */
export function softwareAdapter(backend: WebGpuBackendLike): boolean {
  if (kernelLayout.force) return kernelLayout.force === 'software';
  const info = (backend as unknown as { adapterInfo?: { vendor?: string; architecture?: string } })
    .adapterInfo;
  return /swiftshader|llvmpipe|lavapipe/i.test(`${info?.vendor ?? ''} ${info?.architecture ?? ''}`);
}

/** The active WebGPU backend, or an error saying that one is needed. */
export function requireWebGpu(what: string): WebGpuBackendLike {
  const backend = activeWebGpu();
  if (!backend) throw new Error(`${what} needs the webgpu backend, not ${tf.getBackend()}`);
  return backend;
}

/** The GPU buffer holding a tensor's values (uploaded first if they are still on the CPU). */
export function bufferOf(backend: WebGpuBackendLike, tensor: tf.TensorInfo): GPUBuffer {
  backend.uploadToGPU(tensor.dataId);
  const resource = backend.tensorMap.get(tensor.dataId)?.resource;
  if (!resource || !('mapAsync' in (resource as object)))
    throw new Error(`tensor [${tensor.shape}] has no GPU buffer`);
  return resource as GPUBuffer;
}

/**
 * Sends what tfjs has recorded and not yet submitted (uploads of tensors we are about to read, ops
 * that wrote them), so that our commands, submitted after, see it. tfjs keeps one compute pass open
 * across its dispatches: it must be ended first, or the command buffer is invalid and every op in
 * it is silently dropped (WebGPU reports validation errors to the console, not as exceptions).
 */
export function flushTfjs(backend: WebGpuBackendLike): void {
  if (!(backend as unknown as { commandEncoder: unknown }).commandEncoder) return;
  backend.endComputePassEncoder();
  backend.submitQueue();
}

/** A storage buffer of `bytes` (rounded up to 4), counted. */
export function storageBuffer(device: GPUDevice, bytes: number, label: string): GPUBuffer {
  gpuCounts.objectsCreated++;
  return device.createBuffer({
    label,
    size: Math.max(16, Math.ceil(bytes / 16) * 16),
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC,
  });
}

/** Validation errors of pipelines made and not yet checked (checkPipelines() reports them). */
const pendingChecks: Promise<string | null>[] = [];

/**
 * A compute pipeline from WGSL source (entry point `main`), counted. A shader that does not compile
 * yields an invalid pipeline whose dispatches do nothing, silently: checkPipelines() turns that into
 * an error, and the engine calls it before it reads any result.
 */
export function computePipeline(
  device: GPUDevice,
  code: string,
  label: string,
): GPUComputePipeline {
  gpuCounts.objectsCreated += 2; // the module and the pipeline
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ label, code });
  const pipeline = device.createComputePipeline({
    label,
    layout: 'auto',
    compute: { module, entryPoint: 'main' },
  });
  pendingChecks.push(
    device.popErrorScope().then((error) => (error ? `${label}: ${error.message}` : null)),
  );
  return pipeline;
}

/** Throws if any pipeline made since the last call failed to compile. */
export async function checkPipelines(): Promise<void> {
  if (pendingChecks.length === 0) return;
  const errors = (await Promise.all(pendingChecks.splice(0))).filter((e) => e !== null);
  if (errors.length > 0)
    throw new Error(`a WebGPU kernel failed to compile (a bug; please report it): ${errors[0]}`);
}

/** A bind group of `buffers` in binding order for group 0 of `pipeline`, counted. */
export function bindBuffers(
  device: GPUDevice,
  pipeline: GPUComputePipeline,
  buffers: GPUBuffer[],
  label: string,
): GPUBindGroup {
  gpuCounts.objectsCreated++;
  return device.createBindGroup({
    label,
    layout: pipeline.getBindGroupLayout(0),
    entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })),
  });
}

/** One dispatch recorded into a pass, counted. */
export function dispatch(
  pass: GPUComputePassEncoder,
  pipeline: GPUComputePipeline,
  group: GPUBindGroup,
  x: number,
  y = 1,
  z = 1,
): void {
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, group);
  pass.dispatchWorkgroups(x, y, z);
  gpuCounts.dispatches++;
}

/** Largest workgroup count per dimension WebGPU guarantees. */
export const MAX_WORKGROUPS = 65535;

/** Splits `count` workgroups over x and y so neither passes MAX_WORKGROUPS. */
export function grid(count: number): [number, number] {
  if (count <= MAX_WORKGROUPS) return [Math.max(1, count), 1];
  const y = Math.ceil(count / MAX_WORKGROUPS);
  return [Math.ceil(count / y), y];
}
