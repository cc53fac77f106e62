// A frozen weight kept as the checkpoint ships it, 16 bits a number (BF16 or F16), resident in the
// dot store's memory (src/kernels/matmul/weights16.ts) instead of converted to a float32 tf.Variable:
// half the bytes of a model's weights, read by kernels that widen each number to float32 as they
// go. Frozen means no gradient of its own, so only products through it are needed: x W (forward,
// decoding), dy W^T (the input gradient), and rows of the embedding. Used where the base weights
// never train (LoRA runs, inference); full fine-tuning stays float32. On wasm the numbers live in
// the dot store (kernels/matmul/weights16.ts); on webgpu in GPU buffers as packed words
// (kernels/webgpu/packed16.ts), read by the WebGPU products and the decoding engine.
import { fastPaths } from './fast_paths.ts';
import {
  releaseResident16,
  type HalfKind,
  type Resident16,
  storeResident16,
} from '../kernels/matmul/weights16.ts';
import { disposePacked16, packed16, type Packed16 } from '../kernels/webgpu/packed16.ts';

/** Where a 16-bit weight's numbers live: the wasm dot store, or GPU buffers. */
type Storage = { on: 'wasm'; resident: Resident16 } | { on: 'webgpu'; packed: Packed16 };

/** A frozen 16-bit matrix that stands where a float32 weight (in, out) would. */
export class HalfWeight {
  /** Never trained: the same test as a frozen tf.Variable's. */
  readonly trainable = false;
  private released = false;

  private constructor(
    /** The checkpoint's tensor name, e.g. model.layers.0.mlp.up_proj.weight. */
    readonly name: string,
    /** The numbers as shipped: Hugging Face layout (out, in), or (vocab, width) for embeddings. */
    private readonly storage: Storage,
    readonly rows: number,
    readonly cols: number,
  ) {}

  /**
   * Copies a checkpoint's `rows` x `cols` 16-bit values (its layout) to where the active backend's
   * 16-bit kernels read them: the dot store on wasm, GPU buffers on webgpu.
   */
  static store(
    name: string,
    bits: Uint16Array,
    rows: number,
    cols: number,
    kind: HalfKind,
  ): HalfWeight {
    const storage: Storage =
      fastPaths.weights16() === 'webgpu'
        ? { on: 'webgpu', packed: packed16(bits, rows, cols, kind) }
        : { on: 'wasm', resident: storeResident16(bits, rows, cols, kind) };
    return new HalfWeight(name, storage, rows, cols);
  }

  /** The dot store's copy (wasm), or null on webgpu. */
  get resident(): Resident16 | null {
    return this.storage.on === 'wasm' ? this.storage.resident : null;
  }

  /** The GPU buffers' copy (webgpu), or null on wasm. */
  get packed(): Packed16 | null {
    return this.storage.on === 'webgpu' ? this.storage.packed : null;
  }

  /**
   * (in, out): the shape a float32 weight has here (params.ts), the transpose of the stored one.
   */
  get shape(): [number, number] {
    return [this.cols, this.rows];
  }

  /** Numbers held. */
  get size(): number {
    return this.rows * this.cols;
  }

  get isDisposed(): boolean {
    return this.released;
  }

  /** Frees the store's space or the GPU buffers. */
  dispose(): void {
    if (this.released) return;
    this.released = true;
    if (this.storage.on === 'wasm') releaseResident16(this.storage.resident);
    else disposePacked16(this.storage.packed);
  }
}

/** A frozen weight: float32 on the active backend, or 16-bit in the dot store. */
export function isHalf(weight: unknown): weight is HalfWeight {
  return weight instanceof HalfWeight;
}
