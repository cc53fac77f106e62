// The decoding engine's kernels around the layers: the token embedding's lookup (16-bit rows,
// widened), the final RMSNorm of the rows that feed the head, sampling on the GPU, and the cache's
// row copies.
//
// Sampling keeps model/sample.ts sampleToken's semantics: weights w_v = exp((z_v - max) / T) over
// the whole vocabulary, one uniform u per sequence drawn in JavaScript from the sequence's own
// seeded stream, the first token whose running sum of weights passes u * total (inverse CDF in
// vocabulary order), its log-prob (z - max) / T - log(total); temperature 0 takes the first
// argmax, its log-prob at temperature 1. Three passes over each row's logits: block maxima (and
// each block's first argmax); block sums of the weights under the row's maximum; then one
// workgroup a row finds the block, scans it, and writes the id and log-prob (8 bytes a sequence,
// the one read-back of a token). Sums are float32 in a tree order where the CPU sums in float64 in
// order, so a token can differ only where u * total falls within rounding of a boundary.
import { type HalfKind, STEP_STRUCT, WORKGROUP, f32Literal, widenFunction } from './wgsl_common.ts';

/** Logits a sampling block covers (4 a thread). */
export const SAMPLE_BLOCK = 4 * WORKGROUP;

/** A vocabulary chunk of the embedding: its first token and token count (one buffer each). */
export interface VocabChunk {
  start: number;
  rows: number;
}

/**
 * x[n] = E[token n], widened; one workgroup a row. Bindings: 0 step, 1 tokens (u32), 2 x (out),
 * then one buffer per vocabulary chunk.
 */
export function embedKernel(width: number, chunks: VocabChunk[], kind: HalfKind): string {
  const words = Math.ceil(width / 2);
  const read = chunks
    .map(
      (chunk, c) => `if (id >= ${chunk.start}u && id < ${chunk.start + chunk.rows}u) {
      let wv = widen(e${c}[(id - ${chunk.start}u) * ${words}u + j]);
      x[n * ${width}u + 2u * j] = wv.x;
      if (2u * j + 1u < ${width}u) { x[n * ${width}u + 2u * j + 1u] = wv.y; }
    }`,
    )
    .join(' else ');
  return `${STEP_STRUCT}
${widenFunction(kind)}
@group(0) @binding(0) var<uniform> step: Step;
@group(0) @binding(1) var<storage, read> tokens: array<u32>;
@group(0) @binding(2) var<storage, read_write> x: array<f32>;
${chunks.map((_, c) => `@group(0) @binding(${3 + c}) var<storage, read> e${c}: array<u32>;`).join('\n')}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let n = group.x + group.y * 65535u;
  if (n >= step.rows) { return; }
  let id = tokens[n];
  for (var j = lid; j < ${words}u; j += ${WORKGROUP}u) {
    ${read}
  }
}
`;
}

/**
 * xn[i] = RMSNorm(x[gather[i]]) * w: the rows that feed the head (every row when decoding, each
 * prompt's last when prefilling). One workgroup a row. Bindings: 0 step, 1 params, 2 x, 3 gather
 * (u32), 4 xn (out).
 */
export function finalNormKernel(width: number, weight: number, eps: number): string {
  return `${STEP_STRUCT}
@group(0) @binding(0) var<uniform> step: Step;
@group(0) @binding(1) var<storage, read> params: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> gather: array<u32>;
@group(0) @binding(4) var<storage, read_write> xn: array<f32>;
var<workgroup> partial: array<f32, ${WORKGROUP}>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group.x;
  if (i >= step.rows) { return; }
  let source = gather[i] * ${width}u;
  var sum = 0.0;
  for (var k = lid; k < ${width}u; k += ${WORKGROUP}u) { let v = x[source + k]; sum += v * v; }
  partial[lid] = sum;
  workgroupBarrier();
  for (var stride = ${WORKGROUP / 2}u; stride > 0u; stride >>= 1u) {
    if (lid < stride) { partial[lid] = partial[lid] + partial[lid + stride]; }
    workgroupBarrier();
  }
  let rinv = inverseSqrt(partial[0] / f32(${width}) + ${f32Literal(eps)});
  for (var k = lid; k < ${width}u; k += ${WORKGROUP}u) {
    xn[i * ${width}u + k] = x[source + k] * rinv * params[${weight}u + k];
  }
}
`;
}

const sampleBindings = `${STEP_STRUCT}
@group(0) @binding(0) var<uniform> step: Step;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> sampling: array<u32>;
@group(0) @binding(3) var<storage, read_write> stats: array<f32>;`;

/** Blocks of a row of `vocab` logits. */
export function sampleBlocks(vocab: number): number {
  return Math.ceil(vocab / SAMPLE_BLOCK);
}

/**
 * Pass 1, one workgroup a (row, block): the block's max logit and its first position, into
 * stats[row][block] = (max, argmax, sum, 0). Row b reads logits row sampling[2b] (rows that share
 * a prompt share its logits); sampling[2b + 1] is its uniform's bits. Dispatch (blocks, rows).
 */
export function sampleMaxKernel(vocab: number): string {
  const blocks = sampleBlocks(vocab);
  return `${sampleBindings}
var<workgroup> best: array<f32, ${WORKGROUP}>;
var<workgroup> position: array<u32, ${WORKGROUP}>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let block = group.x;
  let b = group.y;
  if (b >= step.rows) { return; }
  let row = sampling[2u * b] * ${vocab}u;
  var m = -3.0e38;
  var at = 0xffffffffu;
  for (var i = 0u; i < 4u; i++) {
    let v = block * ${SAMPLE_BLOCK}u + lid * 4u + i;
    if (v < ${vocab}u) {
      let z = logits[row + v];
      if (z > m) { m = z; at = v; }
    }
  }
  best[lid] = m;
  position[lid] = at;
  workgroupBarrier();
  for (var stride = ${WORKGROUP / 2}u; stride > 0u; stride >>= 1u) {
    if (lid < stride) {
      let other = best[lid + stride];
      // the first position of the max: ties go to the lower position
      if (other > best[lid] || (other == best[lid] && position[lid + stride] < position[lid])) {
        best[lid] = other;
        position[lid] = position[lid + stride];
      }
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    let at4 = (b * ${blocks}u + block) * 4u;
    stats[at4] = best[0];
    stats[at4 + 1u] = bitcast<f32>(position[0]);
  }
}
`;
}

/** WGSL: the row's max over its blocks' maxima (every thread computes it). */
function rowMax(blocks: number): string {
  return `
  var rowMaximum = -3.0e38;
  for (var k = 0u; k < ${blocks}u; k++) { rowMaximum = max(rowMaximum, stats[(b * ${blocks}u + k) * 4u]); }`;
}

/**
 * Pass 2, one workgroup a (row, block): the block's sum of exp((z - rowMax) * scale) into
 * stats[row][block][2]. Dispatch (blocks, rows).
 */
export function sampleSumKernel(vocab: number): string {
  const blocks = sampleBlocks(vocab);
  return `${sampleBindings}
var<workgroup> partial: array<f32, ${WORKGROUP}>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let block = group.x;
  let b = group.y;
  if (b >= step.rows) { return; }
  let row = sampling[2u * b] * ${vocab}u;${rowMax(blocks)}
  var sum = 0.0;
  for (var i = 0u; i < 4u; i++) {
    let v = block * ${SAMPLE_BLOCK}u + lid * 4u + i;
    if (v < ${vocab}u) { sum += exp((logits[row + v] - rowMaximum) * step.scale); }
  }
  partial[lid] = sum;
  workgroupBarrier();
  for (var stride = ${WORKGROUP / 2}u; stride > 0u; stride >>= 1u) {
    if (lid < stride) { partial[lid] = partial[lid] + partial[lid + stride]; }
    workgroupBarrier();
  }
  if (lid == 0u) { stats[(b * ${blocks}u + block) * 4u + 2u] = partial[0]; }
}
`;
}

/**
 * Pass 3, one workgroup a row: the token and its log-prob into picked[2b] (id) and picked[2b + 1]
 * (log-prob bits). Bindings as the other passes plus 4 picked (u32, out). Dispatch (rows).
 */
export function samplePickKernel(vocab: number): string {
  const blocks = sampleBlocks(vocab);
  return `${sampleBindings}
@group(0) @binding(4) var<storage, read_write> picked: array<u32>;
var<workgroup> scan: array<f32, ${WORKGROUP}>;
var<workgroup> choice: atomic<u32>;
var<workgroup> found: array<f32, 3>; // the chosen block, the weight before it, the total

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let b = group.x;
  if (b >= step.rows) { return; }
  let row = sampling[2u * b] * ${vocab}u;
  let u = bitcast<f32>(sampling[2u * b + 1u]);${rowMax(blocks)}
  // the first argmax: the first block whose max is the row's
  var argmax = 0u;
  for (var k = 0u; k < ${blocks}u; k++) {
    let at4 = (b * ${blocks}u + k) * 4u;
    if (stats[at4] == rowMaximum) { argmax = bitcast<u32>(stats[at4 + 1u]); break; }
  }
  if (lid == 0u) {
    var total = 0.0;
    for (var k = 0u; k < ${blocks}u; k++) { total += stats[(b * ${blocks}u + k) * 4u + 2u]; }
    let threshold = u * total;
    var before = 0.0;
    var chosen = ${blocks}u;
    for (var k = 0u; k < ${blocks}u; k++) {
      let s = stats[(b * ${blocks}u + k) * 4u + 2u];
      if (before + s > threshold) { chosen = k; break; }
      before += s;
    }
    found[0] = f32(chosen);
    found[1] = threshold - before;
    found[2] = total;
    atomicStore(&choice, 0xffffffffu);
  }
  let chosen = workgroupUniformLoad(&found); // (uniform: the loop below has barriers)
  let block = u32(chosen[0]);
  let total = chosen[2];
  var id = argmax;
  if (step.greedy == 0u && block < ${blocks}u) {
    // inside the block: a running sum over the 256 threads' 4 weights each, then the first past it
    var w: array<f32, 4>;
    var mine = 0.0;
    for (var i = 0u; i < 4u; i++) {
      let v = block * ${SAMPLE_BLOCK}u + lid * 4u + i;
      w[i] = select(0.0, exp((logits[row + v] - rowMaximum) * step.scale), v < ${vocab}u);
      mine += w[i];
    }
    scan[lid] = mine;
    workgroupBarrier();
    for (var stride = 1u; stride < ${WORKGROUP}u; stride <<= 1u) {
      let add = select(0.0, scan[lid - stride], lid >= stride);
      workgroupBarrier();
      scan[lid] = scan[lid] + add;
      workgroupBarrier();
    }
    var running = scan[lid] - mine;
    let residual = chosen[1];
    for (var i = 0u; i < 4u; i++) {
      running += w[i];
      if (running > residual) { atomicMin(&choice, block * ${SAMPLE_BLOCK}u + lid * 4u + i); break; }
    }
    workgroupBarrier();
    let first = atomicLoad(&choice);
    if (first < ${vocab}u) { id = first; }
  }
  if (lid == 0u) {
    let z = logits[row + id];
    picked[2u * b] = id;
    picked[2u * b + 1u] = bitcast<u32>((z - rowMaximum) * step.scale - log(total));
  }
}
`;
}

/**
 * Copies cache rows: for each pair (src, dst) of `pairs`, the first `step.slots` slots of every
 * key head, keys and values. Dispatch (ceil(kvHeads * slots * hd / 256), pairs).
 * Bindings: 0 step, 1 pairs (u32), 2 keys, 3 values.
 */
export function copyRowsKernel(kvHeads: number, headDim: number): string {
  return `${STEP_STRUCT}
@group(0) @binding(0) var<uniform> step: Step;
@group(0) @binding(1) var<storage, read> pairs: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys: array<f32>;
@group(0) @binding(3) var<storage, read_write> values: array<f32>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let p = group.y;
  if (p >= step.rows) { return; }
  let e = group.x * ${WORKGROUP}u + lid;
  let perHead = step.slots * ${headDim}u;
  if (e >= ${kvHeads}u * perHead) { return; }
  let j = e / perHead;
  let rest = e % perHead;
  let src = (pairs[2u * p] * ${kvHeads}u + j) * step.capacity * ${headDim}u + rest;
  let dst = (pairs[2u * p + 1u] * ${kvHeads}u + j) * step.capacity * ${headDim}u + rest;
  keys[dst] = keys[src];
  values[dst] = values[src];
}
`;
}
