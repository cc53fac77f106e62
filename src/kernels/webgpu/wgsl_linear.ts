// The decoding engine's linear layers as one WGSL kernel each: for rows x (N, K), optionally
// RMS-normed first, the products with one or several frozen 16-bit weights W_s (O_s, K) as shipped,
// plus each one's bias and LoRA term scale (x A_s) B_s, then an epilogue: store, add a residual, or
// SwiGLU of a gate/up pair. So a layer's q, k and v are one dispatch (norm + three products + biases
// + LoRA), its output projection with the residual one, gate and up with the SwiGLU one, down with
// the residual one.
//
// Why one kernel per step rather than tfjs's ops: on WebGPU every op is a dispatch and a decoding
// step of tfjs ops was ~1,800 of them a token at 0.5B (docs/performance.md), each costing more
// than its arithmetic. Here a layer is 5 (with attention_kernel.ts).
//
// Layout: a workgroup of 256 threads owns COLS output columns of one segment (one weight) and a
// tile of up to ROWS rows (workgroup_id.y). Thread t handles column t % COLS over the slice
// t / COLS of the weight's words (SLICES = 256 / COLS slices), for every row at once, so a weight
// word is read once for all rows; the slices' partial sums meet in workgroup memory. The norm's
// 1/rms of each row, and the LoRA down-projection u = x_n A (N, r) of the workgroup's segment, are
// computed by each workgroup for itself: reading x and A from cache costs less than a dispatch.
//
// Numbers: float32 throughout (each weight widened exactly); sums in a different order from
// tfjs's, so results agree to float32 rounding (test/e2e/webgpu_engine.test.ts).
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
  /** Output columns per workgroup (a divisor of 256, at most 64). */
  cols?: number;
}

/** Words a row of K 16-bit numbers takes (rows padded to whole words). */
export function rowWords(inputs: number): number {
  return Math.ceil(inputs / 2);
}

/** Workgroups along x for a spec: one per COLS columns of each segment (of the pair for SwiGLU). */
export function linearWorkgroups(spec: LinearSpec): number {
  const cols = spec.cols ?? 32;
  if (spec.epilogue === 'swiglu') return Math.ceil(spec.segments[0]!.outputs / cols);
  return spec.segments.reduce((sum, s) => sum + Math.ceil(s.outputs / cols), 0);
}

/**
 * Bindings: 0 step (uniform), 1 params (f32), 2 x (f32, N rows of K), 3 output (f32), then
 * 'residual': 4 residual (f32); then one weight buffer (u32 words) per segment.
 */
export function linearKernel(spec: LinearSpec): string {
  const cols = spec.cols ?? 32;
  if (WORKGROUP % cols !== 0 || cols > 64) throw new Error(`cols ${cols} must divide 256, <= 64`);
  const slices = WORKGROUP / cols;
  const K = spec.inputs;
  const words = rowWords(K);
  const ROWS = spec.rowsPerTile;
  if (!(ROWS >= 1 && ROWS <= 16)) throw new Error(`rowsPerTile ${ROWS} must be 1..16`);
  const pair = spec.epilogue === 'swiglu';
  if (
    pair &&
    (spec.segments.length !== 2 || spec.segments[0]!.outputs !== spec.segments[1]!.outputs)
  )
    throw new Error('a SwiGLU kernel takes a gate and an up weight of equal outputs');
  const maxRank = Math.max(0, ...spec.segments.map((s) => s.lora?.rank ?? 0));
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
  // the products of one segment: each thread its column over its slice of words, all rows
  const accumulate = (s: number, target: string) => {
    const seg = spec.segments[s]!;
    return `
  {
    let c = col0 + (lid % ${cols}u);
    let slice = lid / ${cols}u;
    var acc: array<f32, ${ROWS}>;
    if (c < ${seg.outputs}u) {
      let base = c * ${words}u;
      for (var j = slice; j < ${words}u; j += ${slices}u) {
        let wv = widen(w${s}[base + j]);
        let k = 2u * j;
        for (var r = 0u; r < ${ROWS}u; r++) {
          if (r < rows) {
            ${
              K % 2 === 0
                ? `acc[r] += ${input('r', 'k')} * wv.x + ${input('r', 'k + 1u')} * wv.y;`
                : `var lo = ${input('r', 'k')} * wv.x;
            if (k + 1u < ${K}u) { lo += ${input('r', 'k + 1u')} * wv.y; }
            acc[r] += lo;`
            }
          }
        }
      }
    }
    // the slices' partial sums of each row: 2 barriers a row
    for (var r = 0u; r < ${ROWS}u; r++) {
      partial[lid] = acc[r];
      workgroupBarrier();
      if (lid < ${cols}u) {
        var total = 0.0;
        for (var i = 0u; i < ${slices}u; i++) { total += partial[i * ${cols}u + lid]; }
        ${target}[r * ${cols}u + lid] = total;
      }
      workgroupBarrier();
    }
  }`;
  };
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
  // bias and LoRA up-projection of one value: ((x W + b) + u B), tfjs's order
  const finish = (s: number, value: string, r: string, c: string) => {
    const seg = spec.segments[s]!;
    let code = `var v${s} = ${value};`;
    if (seg.bias !== null) code += `\n        v${s} = v${s} + params[${seg.bias}u + ${c}];`;
    if (seg.lora) {
      code += `
        if (step.lora == 1u) {
          var up = 0.0;
          for (var j = 0u; j < ${seg.lora.rank}u; j++) {
            up += u${s}[${r} * ${seg.lora.rank}u + j] * params[${seg.lora.b}u + j * ${seg.outputs}u + ${c}];
          }
          v${s} = v${s} + up;
        }`;
    }
    return code;
  };
  const shared = [
    `var<workgroup> partial: array<f32, ${WORKGROUP}>;`,
    `var<workgroup> rinv: array<f32, ${ROWS}>;`,
    `var<workgroup> tile0: array<f32, ${ROWS * cols}>;`,
    ...(pair ? [`var<workgroup> tile1: array<f32, ${ROWS * cols}>;`] : []),
    ...(maxRank > 0
      ? spec.segments.map((_, s) => `var<workgroup> u${s}: array<f32, ${ROWS * maxRank}>;`)
      : []),
  ];
  // which segment and column tile this workgroup owns
  const tiles = spec.segments.map((s) => Math.ceil(s.outputs / cols));
  let select: string;
  if (pair) {
    select = `let seg = 0u;\n  let col0 = wid * ${cols}u;`;
  } else {
    const starts = tiles.map((_, i) => tiles.slice(0, i).reduce((a, b) => a + b, 0));
    select = `var seg = 0u;\n  var col0 = wid * ${cols}u;\n${starts
      .slice(1)
      .map(
        (start, i) =>
          `  if (wid >= ${start}u) { seg = ${i + 1}u; col0 = (wid - ${start}u) * ${cols}u; }`,
      )
      .join('\n')}`;
  }
  const epilogue = (() => {
    const rc = `
    for (var e = lid; e < ${ROWS * cols}u; e += ${WORKGROUP}u) {
      let r = e / ${cols}u;
      let cl = e % ${cols}u;
      let c = col0 + cl;
      if (r < rows`;
    if (pair) {
      const gate = spec.segments[0];
      return `${rc} && c < ${gate!.outputs}u) {
        ${finish(0, `tile0[e]`, 'r', 'c')}
        ${finish(1, `tile1[e]`, 'r', 'c')}
        // SwiGLU: silu(gate) * up = gate * sigmoid(gate) * up
        out[(row0 + r) * ${spec.outputStride}u + ${gate!.outOffset}u + c] = v0 / (1.0 + exp(-v0)) * v1;
      }
    }`;
    }
    return spec.segments
      .map(
        (seg, s) => `
  if (seg == ${s}u) {${rc} && c < ${seg.outputs}u) {
        ${finish(s, `tile0[e]`, 'r', 'c')}
        let at = (row0 + r) * ${spec.outputStride}u + ${seg.outOffset}u + c;
        ${spec.epilogue === 'residual' ? `out[at] = residual[at] + v${s};` : `out[at] = v${s};`}
      }
    }
  }`,
      )
      .join('');
  })();
  const body = pair
    ? `${loraDown(0)}${loraDown(1)}${accumulate(0, 'tile0')}${accumulate(1, 'tile1')}`
    : spec.segments
        .map((_, s) => `\n  if (seg == ${s}u) {${loraDown(s)}${accumulate(s, 'tile0')}\n  }`)
        .join('');
  return `${STEP_STRUCT}
${widenFunction(spec.kind)}
${bindings.join('\n')}
${shared.join('\n')}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  // every binding used, so the pipeline's automatic layout keeps them all
  ${bindings.map((line) => `_ = &${/var<[^>]+> (\w+)/.exec(line)![1]};`).join(' ')}
  let wid = group.x;
  let row0 = group.y * ${ROWS}u;
  let rows = min(${ROWS}u, step.rows - min(step.rows, row0));
  ${select}
${normCode}${body}
${epilogue}
}
`;
}
