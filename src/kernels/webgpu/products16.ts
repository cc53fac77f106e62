// Products through frozen 16-bit weights (packed16.ts) as tfjs WebGPU kernels, for everything but
// decoding's steps: prefill and scoring (x W^T as stored), the input gradient (dy W as stored), and
// rows of the embedding. Each weight word is widened in the shader as it is read, so no float32
// copy of a weight exists, even for one product. On a GPU, tiled: a workgroup of 16 x 16 threads
// makes a 64 x 64 tile of the output, 4 x 4 a thread, through 16-deep slices of both operands
// staged in workgroup memory. On a software adapter, where a workgroup barrier is a context switch
// on the CPU, a layout with none: a thread per output column and 16 rows (measured on SwiftShader
// at the demo model's shapes: 15 ms against the tiled 185 ms and tf.matMul's 41 ms for 4 rows).
//
// Registered as tfjs kernels (so tensors, tidy and the backend's command stream work as for any
// op); their gradients are the callers' (model/half_ops.ts pairs the two products).
import * as tf from '@tensorflow/tfjs';
import { softwareAdapter, type WebGpuBackendLike } from './gpu.ts';
import type { Packed16, Packed16Chunk } from './packed16.ts';
import { type HalfKind, widenFunction } from './wgsl_common.ts';

/** tfjs's WebGPU program shape (its WebGPUProgram type, the fields we fill). */
interface Program {
  outputShape: number[];
  shaderKey: string;
  dispatchLayout: { x: number[]; y?: number[] };
  dispatch: [number, number, number];
  workgroupSize: [number, number, number];
  variableNames: string[];
  getUserCode(): string;
}

interface ProgramBackend {
  runWebGPUProgram(program: Program, inputs: tf.TensorInfo[], dtype: tf.DataType): tf.TensorInfo;
}

const TILE = 64;

/** The widen() of a kind, reading tfjs's int32 binding as u32 words. */
const widenI32 = (kind: HalfKind) =>
  `${widenFunction(kind)}\nfn widenAt(index: u32) -> vec2<f32> { return widen(bitcast<u32>(W[index])); }`;

/**
 * C (N, O) = X (N, K) S^T for S stored (O, K), 16-bit: each output is a row of X dotted with a row
 * of S. Inputs X (float32), W (int32 words of S).
 */
function productTProgram(N: number, K: number, O: number, kind: HalfKind): Program {
  const words = Math.ceil(K / 2);
  return {
    outputShape: [N, O],
    shaderKey: `agenticProductT16_${kind}_${N}_${K}_${O}`,
    dispatchLayout: { x: [1], y: [0] },
    dispatch: [Math.ceil(O / TILE), Math.ceil(N / TILE), 1],
    workgroupSize: [16, 16, 1],
    variableNames: ['X', 'W'],
    getUserCode: () => `
${widenI32(kind)}
var<workgroup> xs: array<array<f32, 17>, ${TILE}>;
var<workgroup> ws: array<array<f32, 17>, ${TILE}>;
fn main() {
  _ = &uniforms;
  let tx = localId.x;
  let ty = localId.y;
  let t = localIndex;
  let n0 = workgroupId.y * ${TILE}u;
  let o0 = workgroupId.x * ${TILE}u;
  var acc: array<array<f32, 4>, 4>;
  for (var k0 = 0u; k0 < ${2 * words}u; k0 += 16u) {
    // X's 64 x 16 slice: 4 numbers a thread; S's 64 x 16 slice: 2 words a thread
    for (var i = 0u; i < 4u; i++) {
      let e = t * 4u + i;
      let r = e / 16u;
      let c = e % 16u;
      let n = n0 + r;
      let k = k0 + c;
      xs[r][c] = select(0.0, X[n * ${K}u + k], n < ${N}u && k < ${K}u);
    }
    for (var i = 0u; i < 2u; i++) {
      let e = t * 2u + i;
      let r = e / 8u;
      let c = e % 8u;
      let o = o0 + r;
      let word = k0 / 2u + c;
      var pair = vec2<f32>(0.0, 0.0);
      if (o < ${O}u && word < ${words}u) { pair = widenAt(o * ${words}u + word); }
      ws[r][2u * c] = pair.x;
      ws[r][2u * c + 1u] = pair.y;
    }
    workgroupBarrier();
    for (var k = 0u; k < 16u; k++) {
      for (var i = 0u; i < 4u; i++) {
        let a = xs[ty * 4u + i][k];
        for (var j = 0u; j < 4u; j++) { acc[i][j] += a * ws[tx * 4u + j][k]; }
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < 4u; i++) {
    for (var j = 0u; j < 4u; j++) {
      let n = n0 + ty * 4u + i;
      let o = o0 + tx * 4u + j;
      if (n < ${N}u && o < ${O}u) { result[n * ${O}u + o] = acc[i][j]; }
    }
  }
}
`,
  };
}

/**
 * C (N, K) = dY (N, O) S for S stored (O, K), 16-bit: the input gradient through x S^T.
 * Inputs X (dY, float32), W (int32 words of S).
 */
function productProgram(N: number, O: number, K: number, kind: HalfKind): Program {
  const words = Math.ceil(K / 2);
  return {
    outputShape: [N, K],
    shaderKey: `agenticProduct16_${kind}_${N}_${O}_${K}`,
    dispatchLayout: { x: [1], y: [0] },
    dispatch: [Math.ceil(K / TILE), Math.ceil(N / TILE), 1],
    workgroupSize: [16, 16, 1],
    variableNames: ['X', 'W'],
    getUserCode: () => `
${widenI32(kind)}
var<workgroup> ys: array<array<f32, 17>, ${TILE}>;
var<workgroup> ss: array<array<f32, ${TILE + 1}>, 16>;
fn main() {
  _ = &uniforms;
  let tx = localId.x;
  let ty = localId.y;
  let t = localIndex;
  let n0 = workgroupId.y * ${TILE}u;
  let k0 = workgroupId.x * ${TILE}u;
  var acc: array<array<f32, 4>, 4>;
  for (var o0 = 0u; o0 < ${O}u; o0 += 16u) {
    // dY's 64 x 16 slice: 4 numbers a thread; S's 16 x 64 slice (32 words a row): 2 words a thread
    for (var i = 0u; i < 4u; i++) {
      let e = t * 4u + i;
      let r = e / 16u;
      let c = e % 16u;
      let n = n0 + r;
      let o = o0 + c;
      ys[r][c] = select(0.0, X[n * ${O}u + o], n < ${N}u && o < ${O}u);
    }
    for (var i = 0u; i < 2u; i++) {
      let e = t * 2u + i;
      let r = e / 32u;
      let c = e % 32u;
      let o = o0 + r;
      let word = k0 / 2u + c;
      var pair = vec2<f32>(0.0, 0.0);
      if (o < ${O}u && word < ${words}u) { pair = widenAt(o * ${words}u + word); }
      ss[r][2u * c] = pair.x;
      ss[r][2u * c + 1u] = pair.y;
    }
    workgroupBarrier();
    for (var o = 0u; o < 16u; o++) {
      for (var i = 0u; i < 4u; i++) {
        let a = ys[ty * 4u + i][o];
        for (var j = 0u; j < 4u; j++) { acc[i][j] += a * ss[o][tx * 4u + j]; }
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < 4u; i++) {
    for (var j = 0u; j < 4u; j++) {
      let n = n0 + ty * 4u + i;
      let k = k0 + tx * 4u + j;
      if (n < ${N}u && k < ${K}u) { result[n * ${K}u + k] = acc[i][j]; }
    }
  }
}
`,
  };
}

/** Rows a thread of the software layouts below carries. */
const ROWS = 16;

/**
 * productTProgram's software layout (no workgroup memory, no barriers: a software adapter runs a
 * barrier as a context switch): a thread per output column, 16 rows of X at once.
 */
function productTColumns(N: number, K: number, O: number, kind: HalfKind): Program {
  const words = Math.ceil(K / 2);
  return {
    outputShape: [N, O],
    shaderKey: `agenticProductT16c_${kind}_${N}_${K}_${O}`,
    dispatchLayout: { x: [1], y: [0] },
    dispatch: [Math.ceil(O / 256), Math.ceil(N / ROWS), 1],
    workgroupSize: [256, 1, 1],
    variableNames: ['X', 'W'],
    getUserCode: () => `
${widenI32(kind)}
fn main() {
  _ = &uniforms;
  let o = workgroupId.x * 256u + localIndex;
  let n0 = workgroupId.y * ${ROWS}u;
  if (o >= ${O}u) { return; }
  var acc: array<f32, ${ROWS}>;
  for (var j = 0u; j < ${words}u; j++) {
    let w = widenAt(o * ${words}u + j);
    let k = 2u * j;
    for (var r = 0u; r < ${ROWS}u; r++) {
      let n = n0 + r;
      if (n < ${N}u) {
        var term = X[n * ${K}u + k] * w.x;
        if (k + 1u < ${K}u) { term += X[n * ${K}u + k + 1u] * w.y; }
        acc[r] += term;
      }
    }
  }
  for (var r = 0u; r < ${ROWS}u; r++) {
    if (n0 + r < ${N}u) { result[(n0 + r) * ${O}u + o] = acc[r]; }
  }
}
`,
  };
}

/** productProgram's software layout: a thread per output word (two columns), 16 rows at once. */
function productColumns(N: number, O: number, K: number, kind: HalfKind): Program {
  const words = Math.ceil(K / 2);
  return {
    outputShape: [N, K],
    shaderKey: `agenticProduct16c_${kind}_${N}_${O}_${K}`,
    dispatchLayout: { x: [1], y: [0] },
    dispatch: [Math.ceil(words / 256), Math.ceil(N / ROWS), 1],
    workgroupSize: [256, 1, 1],
    variableNames: ['X', 'W'],
    getUserCode: () => `
${widenI32(kind)}
fn main() {
  _ = &uniforms;
  let j = workgroupId.x * 256u + localIndex;
  let n0 = workgroupId.y * ${ROWS}u;
  if (j >= ${words}u) { return; }
  var lo: array<f32, ${ROWS}>;
  var hi: array<f32, ${ROWS}>;
  for (var o = 0u; o < ${O}u; o++) {
    let w = widenAt(o * ${words}u + j);
    for (var r = 0u; r < ${ROWS}u; r++) {
      let n = n0 + r;
      if (n < ${N}u) {
        let a = X[n * ${O}u + o];
        lo[r] += a * w.x;
        hi[r] += a * w.y;
      }
    }
  }
  let k = 2u * j;
  for (var r = 0u; r < ${ROWS}u; r++) {
    let n = n0 + r;
    if (n < ${N}u) {
      result[n * ${K}u + k] = lo[r];
      if (k + 1u < ${K}u) { result[n * ${K}u + k + 1u] = hi[r]; }
    }
  }
}
`,
  };
}

/**
 * Rows of S (O, K), 16-bit, widened: out[n] = S[ids[n] - start] where ids[n] is in the chunk, else
 * out[n] as `previous` has it (the other chunks' rows). Inputs X (ids, int32), W, P (previous).
 */
function rowsProgram(N: number, K: number, start: number, rows: number, kind: HalfKind): Program {
  const words = Math.ceil(K / 2);
  return {
    outputShape: [N, K],
    shaderKey: `agenticRows16_${kind}_${N}_${K}_${start}_${rows}`,
    dispatchLayout: { x: [1], y: [0] },
    dispatch: [Math.ceil((N * words) / 256), 1, 1],
    workgroupSize: [256, 1, 1],
    variableNames: ['X', 'W', 'P'],
    getUserCode: () => `
${widenI32(kind)}
fn main() {
  _ = &uniforms;
  let e = globalId.x;
  if (e >= ${N * words}u) { return; }
  let n = e / ${words}u;
  let j = e % ${words}u;
  let id = X[n];
  var pair = vec2<f32>(P[n * ${K}u + 2u * j], 0.0);
  if (2u * j + 1u < ${K}u) { pair.y = P[n * ${K}u + 2u * j + 1u]; }
  if (id >= ${start} && id < ${start + rows}) { pair = widenAt(u32(id - ${start}) * ${words}u + j); }
  result[n * ${K}u + 2u * j] = pair.x;
  if (2u * j + 1u < ${K}u) { result[n * ${K}u + 2u * j + 1u] = pair.y; }
}
`,
  };
}

const PRODUCT_T = 'AgenticRlProductT16';
const PRODUCT = 'AgenticRlProduct16';
const ROWS_KERNEL = 'AgenticRlRows16';

interface Attrs {
  kind: HalfKind;
  rows: number;
  cols: number;
  start: number;
}

function register(
  name: string,
  make: (inputs: tf.TensorInfo[], attrs: Attrs, software: boolean) => Program,
): void {
  tf.registerKernel({
    kernelName: name,
    backendName: 'webgpu',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const list = Object.values(inputs) as tf.TensorInfo[];
      const software = softwareAdapter(backend as unknown as WebGpuBackendLike);
      const program = make(list, attrs as unknown as Attrs, software);
      return (backend as unknown as ProgramBackend).runWebGPUProgram(program, list, 'float32');
    },
  });
}

let registered = false;

function ensureRegistered(): void {
  if (registered) return;
  registered = true;
  register(PRODUCT_T, ([x], a, software) =>
    (software ? productTColumns : productTProgram)(x!.shape[0]!, a.cols, a.rows, a.kind),
  );
  register(PRODUCT, ([dy], a, software) =>
    (software ? productColumns : productProgram)(dy!.shape[0]!, a.rows, a.cols, a.kind),
  );
  register(ROWS_KERNEL, ([ids], a) => rowsProgram(ids!.shape[0]!, a.cols, a.start, a.rows, a.kind));
}

const attrsOf = (w: Packed16, chunk: Packed16Chunk): tf.NamedAttrMap =>
  ({
    kind: w.kind,
    rows: chunk.rows,
    cols: w.cols,
    start: chunk.start,
  }) as unknown as tf.NamedAttrMap;

/** x (N, K) S^T for S (O, K) 16-bit: (N, O), chunks side by side. No gradient. */
export function gpuProductT16(x: tf.Tensor2D, w: Packed16): tf.Tensor2D {
  ensureRegistered();
  if (x.shape[1] !== w.cols)
    throw new Error(`gpuProductT16: x [${x.shape}] against a ${w.rows} x ${w.cols} weight`);
  return tf.tidy(() => {
    const parts = w.chunks.map(
      (chunk) =>
        tf.engine().runKernel(PRODUCT_T, { x, w: chunk.tensor }, attrsOf(w, chunk)) as tf.Tensor2D,
    );
    return parts.length === 1 ? parts[0]! : (tf.concat(parts, 1) as tf.Tensor2D);
  });
}

/** dy (N, O) S for S (O, K) 16-bit: (N, K), summed over chunks. No gradient. */
export function gpuProduct16(dy: tf.Tensor2D, w: Packed16): tf.Tensor2D {
  ensureRegistered();
  if (dy.shape[1] !== w.rows)
    throw new Error(`gpuProduct16: dy [${dy.shape}] against a ${w.rows} x ${w.cols} weight`);
  return tf.tidy(() => {
    const parts = w.chunks.map((chunk) => {
      const slice =
        w.chunks.length === 1
          ? dy
          : (tf.slice(dy, [0, chunk.start], [-1, chunk.rows]) as tf.Tensor2D);
      return tf
        .engine()
        .runKernel(PRODUCT, { dy: slice, w: chunk.tensor }, attrsOf(w, chunk)) as tf.Tensor2D;
    });
    return parts.reduce((sum, part) => tf.add(sum, part) as tf.Tensor2D);
  });
}

/** Rows `ids` of S (O, K) 16-bit, widened: (N, K). No gradient. */
export function gpuRows16(ids: tf.Tensor1D, w: Packed16): tf.Tensor2D {
  ensureRegistered();
  return tf.tidy(() => {
    let out = tf.zeros([ids.shape[0], w.cols]) as tf.Tensor2D;
    for (const chunk of w.chunks)
      out = tf
        .engine()
        .runKernel(
          ROWS_KERNEL,
          { ids, w: chunk.tensor, previous: out },
          attrsOf(w, chunk),
        ) as tf.Tensor2D;
    return out;
  });
}
