// The decoding engine's linear layers as one WGSL kernel each: for rows x (N, K), optionally
// RMS-normed first, the products with one or several frozen 16-bit weights W_s (O_s, K) as shipped,
// plus each one's bias and LoRA term scale (x A_s) B_s, then an epilogue: store, add a residual, or
// SwiGLU of a gate/up pair. So a layer's q, k and v are one dispatch (norm + three products + biases
// + LoRA), its output projection with the residual one, gate and up with the SwiGLU one, down with
// the residual one.
//
// Why one kernel per step rather than tfjs's ops: on WebGPU every op is a dispatch, and a decoding
// step of tfjs ops was ~1,800 of them a token at 0.5B (docs/performance.md), each costing more
// than its arithmetic. Here a layer is 5 (with the attention kernel).
//
// Layout: a workgroup of 256 threads owns COLS output columns of one segment (one weight) and a
// tile of up to ROWS rows (workgroup_id.y). Thread t works on column t / SLICES over the slice
// t % SLICES of the weight's words, for every row at once, so a weight word is read once for all
// rows. With SLICES 32 (GPUs), a warp of 32 threads reads 32 consecutive words of one row
// (coalesced), and the slices' partial sums meet in workgroup memory, 8 rows at a time. With
// SLICES 1 (software adapters, which run workgroup barriers as context switches on a CPU), a
// thread owns a whole column: no barrier past the norm and LoRA's. The norm's 1/rms of each row
// and the LoRA down-projection u = x_n A (N, r) are computed by each workgroup for itself: reading
// x and A from cache costs less than a dispatch.
//
// Numbers: float32 throughout (each weight widened exactly); sums in a different order from
// tfjs's, so results agree to float32 rounding.
import { type HalfKind, STEP_STRUCT, WORKGROUP, f32Literal, widenFunction } from './wgsl_common.ts';

/** One weight of a linear kernel and where its extras live in the layer's float32 parameters. */
export interface LinearSegment {
  /** Output columns O of this weight. */
  outputs: number;
  /** Offset of its bias (O floats) in the params buffer, or null. */
  bias: number | null;
  /** Its LoRA factors in the params buffer, A (K, r) and B (r, O) row-major, or null. */
  lora: { a: number; b: number; rank: number; scale: number } | null;
  /** First column of its output within an output row. */
  outOffset: number;
}

/** What one linear kernel computes (pipeline-time constants). */
export interface LinearSpec {
  kind: HalfKind;
  /** Input width K. */
  inputs: number;
  /** Rows a workgroup handles at most (ROWS), the batch shape's tile. */
  rowsPerTile: number;
  /** RMSNorm of the input rows first: the norm weight's offset in params and eps. */
  norm: { weight: number; eps: number } | null;
  /** One weight each, or (epilogue 'swiglu') the gate then the up weight, of equal outputs. */
  segments: LinearSegment[];
  epilogue: 'store' | 'residual' | 'swiglu';
  /** Floats per output row (and per residual row). */
  outputStride: number;
  /** Threads a column: 32 on GPUs (the default), 1 on software adapters. */
  slices?: number;
}

/** Rows the slices' partial sums are reduced at once (8 x 256 floats of workgroup memory). */
const REDUCE_ROWS = 8;

/** Output columns a workgroup takes. */
function columns(spec: LinearSpec): number {
  return WORKGROUP / (spec.slices ?? 32);
}

/** Workgroups along x for a spec: one per COLS columns of each segment (of the pair for SwiGLU). */
export function linearWorkgroups(spec: LinearSpec): number {
  const cols = columns(spec);
  if (spec.epilogue === 'swiglu') return Math.ceil(spec.segments[0]!.outputs / cols);
  return spec.segments.reduce((sum, s) => sum + Math.ceil(s.outputs / cols), 0);
}

/**
 * Bindings: 0 step (uniform), 1 params (f32), 2 x (f32, N rows of K), 3 output (f32), then
 * 'residual': 4 residual (f32); then one weight buffer (u32 words) per segment.
 */
export function linearKernel(spec: LinearSpec): string {
  const slices = spec.slices ?? 32;
  if (!(slices >= 1 && WORKGROUP % slices === 0))
    throw new Error(`slices ${slices} must divide ${WORKGROUP}`);
  const cols = WORKGROUP / slices;
  const K = spec.inputs;
  const words = Math.ceil(K / 2);
  const ROWS = spec.rowsPerTile;
  if (!(ROWS >= 1 && ROWS <= 16)) throw new Error(`rowsPerTile ${ROWS} must be 1..16`);
  const pair = spec.epilogue === 'swiglu';
  if (
    pair &&
    (spec.segments.length !== 2 || spec.segments[0]!.outputs !== spec.segments[1]!.outputs)
  )
    throw new Error('a SwiGLU kernel takes a gate and an up weight of equal outputs');
  const weightBase = spec.epilogue === 'residual' ? 5 : 4;
  const bindings = [
    '@group(0) @binding(0) var<uniform> step: Step;',
    '@group(0) @binding(1) var<storage, read> params: array<f32>;',
    '@group(0) @binding(2) var<storage, read> x: array<f32>;',
    '@group(0) @binding(3) var<storage, read_write> out: array<f32>;',
    ...(spec.epilogue === 'residual'
      ? ['@group(0) @binding(4) var<storage, read> residual: array<f32>;']
      : []),
    ...spec.segments.map(
      (_, s) => `@group(0) @binding(${weightBase + s}) var<storage, read> w${s}: array<u32>;`,
    ),
  ];
  const names = bindings.map((line) => /var<[^>]+> (\w+)/.exec(line)![1]!);
  // the normed input x_n[row0 + r][k] as the products read it (r the tile's row)
  const input = (r: string, k: string) =>
    spec.norm
      ? `(x[(row0 + ${r}) * ${K}u + (${k})] * rinv[${r}] * params[${spec.norm.weight}u + (${k})])`
      : `x[(row0 + ${r}) * ${K}u + (${k})]`;
  const normCode = spec.norm
    ? `
  // 1/rms of each row: 16 threads a row, then one sums the 16
  {
    let r = lid / 16u;
    let lane = lid % 16u;
    var sum = 0.0;
    if (r < rows) {
      for (var k = lane; k < ${K}u; k += 16u) {
        let v = x[(row0 + r) * ${K}u + k];
        sum += v * v;
      }
    }
    partial[lid] = sum;
    workgroupBarrier();
    if (lid < ${ROWS}u) {
      var total = 0.0;
      for (var i = 0u; i < 16u; i++) { total += partial[lid * 16u + i]; }
      rinv[lid] = inverseSqrt(total / f32(${K}) + ${f32Literal(spec.norm.eps)});
    }
    workgroupBarrier();
  }`
    : '';
  // u = x_n A for one segment's adapter: ROWS x rank dots of length K, split over the threads
  const loraDown = (s: number) => {
    const lora = spec.segments[s]!.lora;
    if (!lora) return '';
    const dots = ROWS * lora.rank;
    const per = Math.max(1, Math.min(32, 2 ** Math.floor(Math.log2(WORKGROUP / dots))));
    return `
  if (step.lora == 1u) {
    // u${s} = x_n A (rows x ${lora.rank}), ${per} threads a dot
    for (var d0 = 0u; d0 < ${dots}u; d0 += ${WORKGROUP / per}u) {
      let d = d0 + lid / ${per}u;
      let lane = lid % ${per}u;
      var sum = 0.0;
      if (d < ${dots}u) {
        let r = d / ${lora.rank}u;
        let j = d % ${lora.rank}u;
        if (r < rows) {
          for (var k = lane; k < ${K}u; k += ${per}u) {
            sum += ${input('r', 'k')} * params[${lora.a}u + k * ${lora.rank}u + j];
          }
        }
      }
      partial[lid] = sum;
      workgroupBarrier();
      if (lane == 0u && d < ${dots}u) {
        var total = 0.0;
        for (var i = 0u; i < ${per}u; i++) { total += partial[lid + i]; }
        u${s}[d] = total * ${f32Literal(lora.scale)};
      }
      workgroupBarrier();
    }
  }`;
  };
  // the products of one segment into acc${s}: this thread's column over its slice, every row
  const accumulate = (s: number) => {
    const seg = spec.segments[s]!;
    const term =
      K % 2 === 0
        ? `acc${s}[r] += ${input('r', 'k')} * wv.x + ${input('r', 'k + 1u')} * wv.y;`
        : `var lo = ${input('r', 'k')} * wv.x;
            if (k + 1u < ${K}u) { lo += ${input('r', 'k + 1u')} * wv.y; }
            acc${s}[r] += lo;`;
    const reduce =
      slices === 1
        ? ''
        : `
  // the slices' partial sums, ${REDUCE_ROWS} rows at a time
  for (var r0 = 0u; r0 < ${ROWS}u; r0 += ${REDUCE_ROWS}u) {
    for (var i = 0u; i < ${Math.min(REDUCE_ROWS, ROWS)}u; i++) {
      if (r0 + i < ${ROWS}u) { partial[i * ${WORKGROUP}u + lid] = acc${s}[r0 + i]; }
    }
    workgroupBarrier();
    if (lid < ${REDUCE_ROWS * cols}u) {
      let r = lid / ${cols}u;
      let column = lid % ${cols}u;
      if (r0 + r < ${ROWS}u) {
        var total = 0.0;
        for (var i = 0u; i < ${slices}u; i++) { total += partial[r * ${WORKGROUP}u + column * ${slices}u + i]; }
        tile${s}[(r0 + r) * ${cols}u + column] = total;
      }
    }
    workgroupBarrier();
  }`;
    return `
  var acc${s}: array<f32, ${ROWS}>;
  {
    let c = col0 + lid / ${slices}u;
    let slice = lid % ${slices}u;
    if (c < ${seg.outputs}u) {
      let base = c * ${words}u;
      for (var j = slice; j < ${words}u; j += ${slices}u) {
        let wv = widen(w${s}[base + j]);
        let k = 2u * j;
        for (var r = 0u; r < ${ROWS}u; r++) {
          if (r < rows) {
            ${term}
          }
        }
      }
    }
  }${reduce}`;
  };
  // bias and LoRA up-projection of one value: ((x W + b) + u B), tfjs's order
  const finish = (s: number, value: string) => {
    const seg = spec.segments[s]!;
    let code = `var v${s} = ${value};`;
    if (seg.bias !== null) code += `\n        v${s} = v${s} + params[${seg.bias}u + c];`;
    if (seg.lora) {
      code += `
        if (step.lora == 1u) {
          var up = 0.0;
          for (var j = 0u; j < ${seg.lora.rank}u; j++) {
            up += u${s}[r * ${seg.lora.rank}u + j] * params[${seg.lora.b}u + j * ${seg.outputs}u + c];
          }
          v${s} = v${s} + up;
        }`;
    }
    return code;
  };
  const value = (s: number) => (slices === 1 ? `acc${s}[r]` : `tile${s}[r * ${cols}u + cl]`);
  const store = (s: number) => {
    const seg = spec.segments[s]!;
    return `let at = (row0 + r) * ${spec.outputStride}u + ${seg.outOffset}u + c;
        ${spec.epilogue === 'residual' ? `out[at] = residual[at] + v${s};` : `out[at] = v${s};`}`;
  };
  // each (row, column) of the tile once: a thread's own column (SLICES 1), or all of them
  const epilogueLoop = (outputs: number, body: string) =>
    slices === 1
      ? `
  {
    let cl = lid;
    let c = col0 + cl;
    if (c < ${outputs}u) {
      for (var r = 0u; r < rows; r++) {
        ${body}
      }
    }
  }`
      : `
  for (var e = lid; e < ${ROWS * cols}u; e += ${WORKGROUP}u) {
    let r = e / ${cols}u;
    let cl = e % ${cols}u;
    let c = col0 + cl;
    if (r < rows && c < ${outputs}u) {
        ${body}
    }
  }`;
  const maxRank = Math.max(0, ...spec.segments.map((s) => s.lora?.rank ?? 0));
  const shared = [
    `var<workgroup> partial: array<f32, ${slices === 1 ? WORKGROUP : REDUCE_ROWS * WORKGROUP}>;`,
    `var<workgroup> rinv: array<f32, ${ROWS}>;`,
    ...(slices === 1
      ? []
      : spec.segments
          .filter((_, s) => pair || s === 0)
          .map((_, s) => `var<workgroup> tile${s}: array<f32, ${ROWS * cols}>;`)),
    ...(maxRank > 0
      ? spec.segments.map((_, s) => `var<workgroup> u${s}: array<f32, ${ROWS * maxRank}>;`)
      : []),
  ];
  let body: string;
  if (pair) {
    body = `${loraDown(0)}${loraDown(1)}${accumulate(0)}${accumulate(1)}${epilogueLoop(
      spec.segments[0]!.outputs,
      `${finish(0, value(0))}
        ${finish(1, value(1))}
        // SwiGLU: silu(gate) * up = gate * sigmoid(gate) * up
        out[(row0 + r) * ${spec.outputStride}u + ${spec.segments[0]!.outOffset}u + c] = v0 / (1.0 + exp(-v0)) * v1;`,
    )}`;
  } else {
    // every segment's code reads acc0 / tile0 / u0 of its own block
    body = spec.segments
      .map((seg, s) => {
        const own = (code: string) =>
          code.replace(new RegExp(`\\b(acc|tile|v)${s}\\b`, 'g'), '$10');
        return `
  if (seg == ${s}u) {${loraDown(s)}${own(accumulate(s))}${own(
    epilogueLoop(seg.outputs, `${finish(s, value(s))}\n        ${store(s)}`),
  )}
  }`;
      })
      .join('');
  }
  const tiles = spec.segments.map((s) => Math.ceil(s.outputs / cols));
  const starts = tiles.map((_, i) => tiles.slice(0, i).reduce((a, b) => a + b, 0));
  const select = pair
    ? `let seg = 0u;\n  let col0 = wid * ${cols}u;`
    : `var seg = 0u;\n  var col0 = wid * ${cols}u;\n${starts
        .slice(1)
        .map(
          (start, i) =>
            `  if (wid >= ${start}u) { seg = ${i + 1}u; col0 = (wid - ${start}u) * ${cols}u; }`,
        )
        .join('\n')}`;
  return `${STEP_STRUCT}
${widenFunction(spec.kind)}
${bindings.join('\n')}
${shared.join('\n')}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  // every binding used, so the pipeline's automatic layout keeps them all
  ${names.map((name) => `_ = &${name};`).join(' ')}
  let wid = group.x;
  let row0 = group.y * ${ROWS}u;
  let rows = min(${ROWS}u, step.rows - min(step.rows, row0));
  ${select}
  _ = seg;
${normCode}${body}
}
`;
}
