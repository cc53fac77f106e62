/// <reference types="@webgpu/types" />
// AdamW over every trained variable at once on WebGPU: the gradients and parameters are copied
// into one flat buffer each (copies, not dispatches), one dispatch updates all parameters and both
// moments, and each variable gets its new values back as a fresh tensor. The moments live flat,
// in buffers of ours, for the optimizer's life. The global norm for clipping is two dispatches
// over the same flat gradients and a 4-byte read-back.
//
// Why: as tfjs ops the update is 14 element-wise ops a variable, so ~5,500 dispatches a step for
// Qwen3-0.6B's 392 adapter matrices; this is 1 (and 2 for the norm), however many there are.
//
// The arithmetic is model/adamw.ts's, operation for operation in float32 (the WASM kernel's order):
//   g = g * gradScale; m' = m b1 + g (1 - b1); v' = v b2 + (g g)(1 - b2);
//   p' = p decay - (m' stepSize) / (sqrt(v' invC2) + eps)
// A GPU may contract a * b + c into one fused multiply-add, so results agree with WASM's to
// float32 rounding, not bit for bit. The norm's sum is float32 in a tree (WASM's: float64 in order).
import * as tf from '@tensorflow/tfjs';
import {
  type WebGpuBackendLike,
  bindBuffers,
  bufferOf,
  checkPipelines,
  computePipeline,
  dispatch,
  flushTfjs,
  gpuCounts,
  grid,
  storageBuffer,
} from './gpu.ts';
import { PER_GROUP, SQUARES, TOTAL, UPDATE } from './wgsl_adamw.ts';

/** The nine scalars of one step (model/adamw.ts makes them). */
export interface GpuAdamWScalars {
  beta1: number;
  oneMinusBeta1: number;
  beta2: number;
  oneMinusBeta2: number;
  stepSize: number;
  inverseCorrection2: number;
  epsilon: number;
  decay: number;
  gradScale: number;
}

const SCALAR_ORDER: (keyof GpuAdamWScalars)[] = [
  'beta1',
  'oneMinusBeta1',
  'beta2',
  'oneMinusBeta2',
  'stepSize',
  'inverseCorrection2',
  'epsilon',
  'decay',
  'gradScale',
];

/** One variable's place in the flat buffers. */
interface Slot {
  name: string;
  variable: tf.Variable;
  offset: number;
  size: number;
}

/** AdamW's state and kernels for a fixed set of float32 variables on the webgpu backend. */
export class GpuAdamW {
  private readonly device: GPUDevice;
  private readonly slots: Slot[];
  private readonly total: number;
  private readonly flat: { g: GPUBuffer; p: GPUBuffer; m: GPUBuffer; v: GPUBuffer };
  private readonly partial: GPUBuffer;
  private readonly sum: GPUBuffer;
  private readonly readback: GPUBuffer;
  private readonly uniforms: { update: GPUBuffer; count: GPUBuffer; partials: GPUBuffer };
  private readonly pipelines: {
    update: GPUComputePipeline;
    squares: GPUComputePipeline;
    total: GPUComputePipeline;
  };
  private readonly groups: { update: GPUBindGroup; squares: GPUBindGroup; total: GPUBindGroup };
  /** The gradients now in the flat buffer, so apply() after globalNorm() copies them once. */
  private loaded: Record<string, tf.Tensor> | null = null;
  private disposed = false;

  constructor(
    private readonly backend: WebGpuBackendLike,
    variables: Map<string, tf.Variable>,
  ) {
    this.device = backend.device;
    let offset = 0;
    this.slots = [...variables].map(([name, variable]) => {
      if (variable.dtype !== 'float32') throw new Error(`GpuAdamW: ${name} is ${variable.dtype}`);
      const slot = { name, variable, offset, size: variable.size };
      offset += variable.size;
      return slot;
    });
    this.total = offset;
    const limit = this.device.limits.maxStorageBufferBindingSize;
    if (this.total * 4 > limit)
      throw new Error(
        `GpuAdamW: ${this.total} trained numbers pass one buffer's ${limit} bytes on this device`,
      );
    const f32 = (count: number, label: string) => storageBuffer(this.device, count * 4, label);
    this.flat = {
      g: f32(this.total, 'adamw g'),
      p: f32(this.total, 'adamw p'),
      m: f32(this.total, 'adamw m'),
      v: f32(this.total, 'adamw v'),
    };
    const partials = Math.max(1, Math.ceil(this.total / PER_GROUP));
    this.partial = f32(partials, 'norm partials');
    this.sum = f32(1, 'norm total');
    gpuCounts.objectsCreated += 4;
    this.readback = this.device.createBuffer({
      size: 16,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    const uniform = (bytes: number) =>
      this.device.createBuffer({
        size: bytes,
        usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
      });
    this.uniforms = { update: uniform(48), count: uniform(16), partials: uniform(16) };
    this.device.queue.writeBuffer(this.uniforms.count, 0, Uint32Array.of(this.total, 0, 0, 0));
    this.device.queue.writeBuffer(this.uniforms.partials, 0, Uint32Array.of(partials, 0, 0, 0));
    this.pipelines = {
      update: computePipeline(this.device, UPDATE, 'adamw'),
      squares: computePipeline(this.device, SQUARES, 'norm squares'),
      total: computePipeline(this.device, TOTAL, 'norm total'),
    };
    this.groups = {
      update: bindBuffers(
        this.device,
        this.pipelines.update,
        [this.uniforms.update, this.flat.g, this.flat.p, this.flat.m, this.flat.v],
        'adamw',
      ),
      squares: bindBuffers(
        this.device,
        this.pipelines.squares,
        [this.uniforms.count, this.flat.g, this.partial],
        'norm squares',
      ),
      total: bindBuffers(
        this.device,
        this.pipelines.total,
        [this.uniforms.partials, this.partial, this.sum],
        'norm total',
      ),
    };
    // moments start at zero (WebGPU zero-fills new buffers)
  }

  /** A variable's gradient, checked; undefined where it has none (the loss does not reach it). */
  private gradOf(grads: Record<string, tf.Tensor>, slot: Slot): tf.Tensor | undefined {
    const grad = grads[slot.name];
    if (grad && (grad.size !== slot.size || grad.dtype !== 'float32'))
      throw new Error(`GpuAdamW: the gradient of ${slot.name} is ${grad.dtype} [${grad.shape}]`);
    return grad;
  }

  /** Copies the gradients into the flat buffer (once per set), zeros where one is missing. */
  private load(encoder: GPUCommandEncoder, grads: Record<string, tf.Tensor>): void {
    if (this.loaded === grads) return;
    for (const slot of this.slots) {
      const grad = this.gradOf(grads, slot);
      if (grad)
        encoder.copyBufferToBuffer(
          bufferOf(this.backend, grad),
          0,
          this.flat.g,
          slot.offset * 4,
          slot.size * 4,
        );
      else encoder.clearBuffer(this.flat.g, slot.offset * 4, slot.size * 4);
    }
    this.loaded = grads;
  }

  /** The gradients' global L2 norm (a missing one counts as zeros). */
  async globalNorm(grads: Record<string, tf.Tensor>): Promise<number> {
    this.checkLive();
    const encoder = this.device.createCommandEncoder();
    this.load(encoder, grads);
    const pass = encoder.beginComputePass();
    dispatch(
      pass,
      this.pipelines.squares,
      this.groups.squares,
      ...grid(Math.ceil(this.total / PER_GROUP)),
    );
    dispatch(pass, this.pipelines.total, this.groups.total, 1);
    pass.end();
    encoder.copyBufferToBuffer(this.sum, 0, this.readback, 0, 4);
    flushTfjs(this.backend);
    this.device.queue.submit([encoder.finish()]);
    gpuCounts.submits++;
    await checkPipelines();
    await this.readback.mapAsync(GPUMapMode.READ, 0, 4);
    const value = new Float32Array(this.readback.getMappedRange(0, 4).slice(0))[0]!;
    this.readback.unmap();
    gpuCounts.readbackBytes += 4;
    return Math.sqrt(value);
  }

  /**
   * One step: each variable with a gradient is assigned a new tensor with its updated values, and
   * its moments are updated in place; a variable without one is left as it is, moments included
   * (the update runs over it, and its moments are put back).
   */
  apply(grads: Record<string, tf.Tensor>, scalars: GpuAdamWScalars): void {
    this.checkLive();
    const data = new DataView(new ArrayBuffer(48));
    data.setUint32(0, this.total, true);
    SCALAR_ORDER.forEach((key, i) => data.setFloat32(4 + 4 * i, scalars[key], true));
    this.device.queue.writeBuffer(this.uniforms.update, 0, data.buffer);
    const encoder = this.device.createCommandEncoder();
    this.load(encoder, grads);
    const present = this.slots.filter((slot) => this.gradOf(grads, slot));
    const missing = this.slots.filter((slot) => !this.gradOf(grads, slot));
    for (const slot of this.slots)
      encoder.copyBufferToBuffer(
        bufferOf(this.backend, slot.variable),
        0,
        this.flat.p,
        slot.offset * 4,
        slot.size * 4,
      );
    const kept = missing.length > 0 ? this.scratchBuffer() : null;
    const moments = [this.flat.m, this.flat.v];
    for (const slot of missing)
      moments.forEach((moment, i) => {
        const at = (i * this.total + slot.offset) * 4;
        encoder.copyBufferToBuffer(moment, slot.offset * 4, kept!, at, slot.size * 4);
      });
    const pass = encoder.beginComputePass();
    dispatch(
      pass,
      this.pipelines.update,
      this.groups.update,
      ...grid(Math.ceil(this.total / PER_GROUP)),
    );
    pass.end();
    for (const slot of missing)
      moments.forEach((moment, i) => {
        const at = (i * this.total + slot.offset) * 4;
        encoder.copyBufferToBuffer(kept!, at, moment, slot.offset * 4, slot.size * 4);
      });
    const fresh = present.map((slot) => {
      const tensor = emptyTensor(this.backend, slot.variable.shape);
      const to = bufferOf(this.backend, tensor);
      encoder.copyBufferToBuffer(this.flat.p, slot.offset * 4, to, 0, slot.size * 4);
      return tensor;
    });
    flushTfjs(this.backend);
    this.device.queue.submit([encoder.finish()]);
    gpuCounts.submits++;
    this.loaded = null;
    present.forEach((slot, i) => {
      slot.variable.assign(fresh[i]!);
      fresh[i]!.dispose();
    });
  }

  private scratch: GPUBuffer | null = null;

  /** Room for both moments, to put back those of variables without a gradient. */
  private scratchBuffer(): GPUBuffer {
    if (!this.scratch)
      this.scratch = storageBuffer(this.device, 2 * this.total * 4, 'adamw kept moments');
    return this.scratch;
  }

  /** Both moments of every variable, read back (checkpoints). */
  async moments(): Promise<Map<string, { m: Float32Array; v: Float32Array }>> {
    this.checkLive();
    const read = async (buffer: GPUBuffer) => {
      const staging = this.device.createBuffer({
        size: this.total * 4,
        usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
      });
      const encoder = this.device.createCommandEncoder();
      encoder.copyBufferToBuffer(buffer, 0, staging, 0, this.total * 4);
      this.device.queue.submit([encoder.finish()]);
      await staging.mapAsync(GPUMapMode.READ);
      const values = new Float32Array(staging.getMappedRange().slice(0));
      staging.destroy();
      return values;
    };
    const [m, v] = [await read(this.flat.m), await read(this.flat.v)];
    return new Map(
      this.slots.map((s) => [
        s.name,
        { m: m.slice(s.offset, s.offset + s.size), v: v.slice(s.offset, s.offset + s.size) },
      ]),
    );
  }

  /** Sets the moments (a restored checkpoint); variables it does not name start at zero. */
  setMoments(moments: Map<string, { m: Float32Array; v: Float32Array }>): void {
    this.checkLive();
    const m = new Float32Array(this.total);
    const v = new Float32Array(this.total);
    for (const slot of this.slots) {
      const saved = moments.get(slot.name);
      if (!saved) continue;
      m.set(saved.m, slot.offset);
      v.set(saved.v, slot.offset);
    }
    this.device.queue.writeBuffer(this.flat.m, 0, m);
    this.device.queue.writeBuffer(this.flat.v, 0, v);
  }

  private checkLive(): void {
    if (this.disposed) throw new Error('GpuAdamW was disposed');
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const b of [
      ...Object.values(this.flat),
      this.partial,
      this.sum,
      this.readback,
      ...Object.values(this.uniforms),
    ])
      b.destroy();
    this.scratch?.destroy();
  }
}

/** A float32 tensor on the webgpu backend whose buffer holds nothing yet (we write it). */
export function emptyTensor(backend: WebGpuBackendLike, shape: number[]): tf.Tensor {
  const info = (
    backend as unknown as { makeTensorInfo(s: number[], d: tf.DataType): tf.TensorInfo }
  ).makeTensorInfo(shape, 'float32');
  backend.uploadToGPU(info.dataId);
  return tf.engine().makeTensorFromTensorInfo(info);
}
