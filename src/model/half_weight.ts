// A frozen weight kept as the checkpoint ships it, 16 bits a number (BF16 or F16), resident in the
// dot store's memory (src/kernels/matmul/weights16.ts) instead of converted to a float32
// tf.Variable: half the bytes of a model's weights, read by kernels that widen each number to
// float32 as they go. Frozen means no gradient of its own, so only products through it are needed:
// x W (forward, decoding), dy W^T (the input gradient), and rows of the embedding. Used where the
// base weights never train (LoRA runs, inference) on the wasm backend; full fine-tuning stays
// float32.
import {
  releaseResident16,
  type HalfKind,
  type Resident16,
  storeResident16,
} from '../kernels/matmul/weights16.ts';

/** A frozen 16-bit matrix that stands where a float32 weight (in, out) would. */
export class HalfWeight {
  /** Never trained: the same test as a frozen tf.Variable's. */
  readonly trainable = false;
  private released = false;

  private constructor(
    /** The checkpoint's tensor name, e.g. model.layers.0.mlp.up_proj.weight. */
    readonly name: string,
    /** The numbers as shipped: Hugging Face layout (out, in), or (vocab, width) for embeddings. */
    readonly resident: Resident16,
  ) {}

  /** Copies a checkpoint's `rows` x `cols` 16-bit values (its layout) into the store. */
  static store(
    name: string,
    bits: Uint16Array,
    rows: number,
    cols: number,
    kind: HalfKind,
  ): HalfWeight {
    return new HalfWeight(name, storeResident16(bits, rows, cols, kind));
  }

  /**
   * (in, out): the shape a float32 weight has here (params.ts), the transpose of the stored one.
   */
  get shape(): [number, number] {
    return [this.resident.cols, this.resident.rows];
  }

  /** Numbers held. */
  get size(): number {
    return this.resident.rows * this.resident.cols;
  }

  get isDisposed(): boolean {
    return this.released;
  }

  /** Frees the store's space. */
  dispose(): void {
    if (this.released) return;
    this.released = true;
    releaseResident16(this.resident);
  }
}

/** A frozen weight: float32 on the active backend, or 16-bit in the dot store. */
export function isHalf(weight: unknown): weight is HalfWeight {
  return weight instanceof HalfWeight;
}
