// The decoding engine's attention as WGSL kernels over a KV cache written in place: per query row
// and head, Qwen3's per-head RMSNorm (if any), RoPE, and softmax attention over the row's visible
// cached slots, in one pass with an online softmax (tiles of 256 slots: running max, running sum,
// rescaled context), so no score matrix exists.
//
// Decoding ('decode'): one workgroup per (sequence, query head) also computes the new key and value
// of its key head for itself (the newest slot is read from there, not from the cache), and the
// first query head of each group writes them into the cache: RoPE, the cache write and attention
// in one dispatch. Prefill ('prefill', several new positions a sequence) writes every new key and
// value first (kvWriteKernel, one dispatch), then attends (attentionKernel), because a workgroup
// would otherwise read slots another is still writing.
//
// Per query row (the rows buffer, 8 u32 each): the cache row it reads and writes, its slot, and the
// two hidden ranges of its sequence ([0, hide0) and [hide1, hide2): padding and slots before a
// cached prefix, as generate() lays them out in model/sample.ts). Slots past its own are hidden
// (causal). RoPE's cos and sin per query row come in the rope buffer (the same float32 tables as
// the reference's, computed in float64 on the CPU).
import { STEP_STRUCT, WORKGROUP, f32Literal } from './wgsl_common.ts';

/** Pipeline-time constants of the attention kernels. */
export interface AttentionSpec {
  heads: number;
  kvHeads: number;
  headDim: number;
  /** Offsets of Qwen3's query and key head norms (headDim floats each) in params, or null. */
  qkNorm: { query: number; key: number; eps: number } | null;
  /** Floats per row of the qkv buffer: H*hd queries, then Hkv*hd keys, then Hkv*hd values. */
  qkvStride: number;
}

function checkSpec(spec: AttentionSpec): void {
  if (spec.headDim > WORKGROUP || spec.headDim % 2 !== 0)
    throw new Error(`head width ${spec.headDim}: the attention kernels take an even width <= 256`);
  if (spec.heads % spec.kvHeads !== 0)
    throw new Error(`${spec.heads} query heads do not group over ${spec.kvHeads} key heads`);
}

/** u32 words per query row in the rows buffer. */
export const ROW_WORDS = 8;

/**
 * WGSL: the query row's fields, read once and made uniform for the workgroup (workgroupUniformLoad:
 * loop bounds with barriers inside must be uniform, and a storage read is not).
 */
const rowFields = `
  if (lid == 0u) {
    for (var i = 0u; i < 5u; i++) { rowInfo[i] = rows[r * ${ROW_WORDS}u + i]; }
  }
  let fields = workgroupUniformLoad(&rowInfo);
  let cacheRow = fields[0];
  let slot = fields[1];
  let hide0 = fields[2];
  let hide1 = fields[3];
  let hide2 = fields[4];`;

/** WGSL: RMSNorm (optional) then RoPE of one head's hd numbers from qkv, into workgroup memory. */
function rotated(spec: AttentionSpec, into: string, from: string, norm: number | null): string {
  const hd = spec.headDim;
  const half = hd / 2;
  const normCode =
    norm === null
      ? ''
      : `
    // the head's RMSNorm: every thread sums the squares, then each scales its own number
    var sum = 0.0;
    for (var i = 0u; i < ${hd}u; i++) { sum += raw[i] * raw[i]; }
    let rinv = inverseSqrt(sum / f32(${hd}) + ${f32Literal(spec.qkNorm!.eps)});
    workgroupBarrier();
    if (lid < ${hd}u) { raw[lid] = raw[lid] * rinv * params[${norm}u + lid]; }
    workgroupBarrier();`;
  return `
  {
    if (lid < ${hd}u) { raw[lid] = qkv[${from} + lid]; }
    workgroupBarrier();${normCode}
    if (lid < ${hd}u) {
      // x cos + rotate_half(x) sin, rotate_half(x) = [-x2, x1]
      let partner = raw[select(lid - ${half}u, lid + ${half}u, lid < ${half}u)];
      let turned = select(partner, -partner, lid < ${half}u);
      ${into}[lid] = raw[lid] * rope[r * ${2 * hd}u + lid] + turned * rope[r * ${2 * hd}u + ${hd}u + lid];
    }
    workgroupBarrier();
  }`;
}

/**
 * Prefill's first half: each query row's new key (normed, rotated) and value, for one key head a
 * workgroup, written into its cache row at its slot. Dispatch (rows, kvHeads).
 * Bindings: 0 step, 1 params, 2 qkv, 3 rows (u32), 4 rope, 5 keys, 6 values.
 */
export function kvWriteKernel(spec: AttentionSpec): string {
  const { heads: H, kvHeads: Hkv, headDim: hd } = spec;
  checkSpec(spec);
  return `${STEP_STRUCT}
@group(0) @binding(0) var<uniform> step: Step;
@group(0) @binding(1) var<storage, read> params: array<f32>;
@group(0) @binding(2) var<storage, read> qkv: array<f32>;
@group(0) @binding(3) var<storage, read> rows: array<u32>;
@group(0) @binding(4) var<storage, read> rope: array<f32>;
@group(0) @binding(5) var<storage, read_write> keys: array<f32>;
@group(0) @binding(6) var<storage, read_write> values: array<f32>;
var<workgroup> raw: array<f32, ${hd}>;
var<workgroup> key: array<f32, ${hd}>;
var<workgroup> rowInfo: array<u32, 5>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  _ = &params; // bound whether or not the head norms read it
  let r = group.x;
  let j = group.y;
  if (r >= step.rows) { return; }
${rowFields}
  let keyAt = r * ${spec.qkvStride}u + ${H * hd}u + j * ${hd}u;
  let valueAt = keyAt + ${Hkv * hd}u;${rotated(spec, 'key', 'keyAt', spec.qkNorm?.key ?? null)}
  if (lid < ${hd}u) {
    let cell = ((cacheRow * ${Hkv}u + j) * step.capacity + slot) * ${hd}u + lid;
    keys[cell] = key[lid];
    values[cell] = qkv[valueAt + lid];
  }
}
`;
}

/**
 * Attention of each query row and head over its visible slots; with `decode`, the newest slot's
 * key and value computed here and written to the cache by the group's first head. Dispatch
 * (rows, heads). Bindings: 0 step, 1 params, 2 qkv, 3 rows (u32), 4 rope, 5 keys, 6 values,
 * 7 context (rows, heads * hd).
 */
export function attentionKernel(spec: AttentionSpec, decode: boolean): string {
  const { heads: H, kvHeads: Hkv, headDim: hd } = spec;
  checkSpec(spec);
  const g = H / Hkv;
  const T = WORKGROUP;
  const newest = decode
    ? `
  let keyAt = r * ${spec.qkvStride}u + ${H * hd}u + j * ${hd}u;
  let valueAt = keyAt + ${Hkv * hd}u;${rotated(spec, 'key', 'keyAt', spec.qkNorm?.key ?? null)}
  if (lid < ${hd}u) {
    newValue[lid] = qkv[valueAt + lid];
    if (h % ${g}u == 0u) {
      let cell = ((cacheRow * ${Hkv}u + j) * step.capacity + slot) * ${hd}u + lid;
      keys[cell] = key[lid];
      values[cell] = newValue[lid];
    }
  }
  workgroupBarrier();`
    : '';
  const cell = (store: string, s: string, d: string) =>
    `${store}[((cacheRow * ${Hkv}u + j) * step.capacity + ${s}) * ${hd}u + ${d}]`;
  // decoding reads the newest slot from this workgroup's own copy (the cache's may be mid-write)
  const scoreCode = decode
    ? `if (s == slot) {
        for (var d = 0u; d < ${hd}u; d++) { dot += query[d] * key[d]; }
      } else {
        for (var d = 0u; d < ${hd}u; d++) { dot += query[d] * ${cell('keys', 's', 'd')}; }
      }`
    : `for (var d = 0u; d < ${hd}u; d++) { dot += query[d] * ${cell('keys', 's', 'd')}; }`;
  const valueCode = decode
    ? `if (s0 + i == slot) { acc += w * newValue[lid]; } else { acc += w * ${cell('values', 's0 + i', 'lid')}; }`
    : `acc += w * ${cell('values', 's0 + i', 'lid')};`;
  return `${STEP_STRUCT}
@group(0) @binding(0) var<uniform> step: Step;
@group(0) @binding(1) var<storage, read> params: array<f32>;
@group(0) @binding(2) var<storage, read> qkv: array<f32>;
@group(0) @binding(3) var<storage, read> rows: array<u32>;
@group(0) @binding(4) var<storage, read> rope: array<f32>;
@group(0) @binding(5) var<storage, read_write> keys: array<f32>;
@group(0) @binding(6) var<storage, read_write> values: array<f32>;
@group(0) @binding(7) var<storage, read_write> context: array<f32>;
var<workgroup> raw: array<f32, ${hd}>;
var<workgroup> rowInfo: array<u32, 5>;
var<workgroup> query: array<f32, ${hd}>;
var<workgroup> key: array<f32, ${hd}>;
var<workgroup> newValue: array<f32, ${hd}>;
var<workgroup> weight: array<f32, ${T}>;
var<workgroup> reduce: array<f32, ${T}>;

@compute @workgroup_size(${T})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  _ = &params; // bound whether or not the head norms read it
  let r = group.x;
  let h = group.y;
  if (r >= step.rows) { return; }
${rowFields}
  let j = h / ${g}u;
  let queryAt = r * ${spec.qkvStride}u + h * ${hd}u;${rotated(spec, 'query', 'queryAt', spec.qkNorm?.query ?? null)}
  // the reference scales the query before its products with the keys
  if (lid < ${hd}u) { query[lid] = query[lid] * ${f32Literal(1 / Math.sqrt(hd))}; }
  workgroupBarrier();${newest}
  var runningMax = -3.0e38;
  var runningSum = 0.0;
  var acc = 0.0; // this thread's number of the context (lid < hd)
  let last = slot; // causal: the slots up to the row's own
  for (var s0 = 0u; s0 <= last; s0 += ${T}u) {
    let s = s0 + lid;
    var score = -3.0e38;
    let visible = s <= last && s >= hide0 && !(s >= hide1 && s < hide2);
    if (visible) {
      var dot = 0.0;
      ${scoreCode}
      score = dot;
    }
    reduce[lid] = score;
    workgroupBarrier();
    for (var stride = ${T / 2}u; stride > 0u; stride >>= 1u) {
      if (lid < stride) { reduce[lid] = max(reduce[lid], reduce[lid + stride]); }
      workgroupBarrier();
    }
    let tileMax = reduce[0];
    let newMax = max(runningMax, tileMax);
    workgroupBarrier();
    let p = select(0.0, exp(score - newMax), visible);
    weight[lid] = p;
    reduce[lid] = p;
    workgroupBarrier();
    for (var stride = ${T / 2}u; stride > 0u; stride >>= 1u) {
      if (lid < stride) { reduce[lid] = reduce[lid] + reduce[lid + stride]; }
      workgroupBarrier();
    }
    let rescale = exp(runningMax - newMax);
    runningSum = runningSum * rescale + reduce[0];
    runningMax = newMax;
    if (lid < ${hd}u) {
      acc = acc * rescale;
      let count = min(${T}u, last + 1u - s0);
      for (var i = 0u; i < count; i++) {
        let w = weight[i];
        if (w != 0.0) { ${valueCode} }
      }
    }
    workgroupBarrier();
  }
  if (lid < ${hd}u) {
    context[r * ${H * hd}u + h * ${hd}u + lid] = acc / runningSum;
  }
}
`;
}

/** WGSL (serial layouts): RMSNorm (optional) then RoPE of one head from qkv, in this thread. */
function rotatedSerial(
  spec: AttentionSpec,
  into: string,
  from: string,
  norm: number | null,
): string {
  const hd = spec.headDim;
  const half = hd / 2;
  const normCode =
    norm === null
      ? ''
      : `
    var sum = 0.0;
    for (var i = 0u; i < ${hd}u; i++) { sum += raw[i] * raw[i]; }
    let rinv = inverseSqrt(sum / f32(${hd}) + ${f32Literal(spec.qkNorm!.eps)});
    for (var i = 0u; i < ${hd}u; i++) { raw[i] = raw[i] * rinv * params[${norm}u + i]; }`;
  return `
  {
    for (var i = 0u; i < ${hd}u; i++) { raw[i] = qkv[${from} + i]; }${normCode}
    for (var i = 0u; i < ${hd}u; i++) {
      // x cos + rotate_half(x) sin, rotate_half(x) = [-x2, x1]
      let partner = raw[select(i - ${half}u, i + ${half}u, i < ${half}u)];
      let turned = select(partner, -partner, i < ${half}u);
      ${into}[i] = raw[i] * rope[r * ${2 * hd}u + i] + turned * rope[r * ${2 * hd}u + ${hd}u + i];
    }
  }`;
}

const serialBindings = `${STEP_STRUCT}
@group(0) @binding(0) var<uniform> step: Step;
@group(0) @binding(1) var<storage, read> params: array<f32>;
@group(0) @binding(2) var<storage, read> qkv: array<f32>;
@group(0) @binding(3) var<storage, read> rows: array<u32>;
@group(0) @binding(4) var<storage, read> rope: array<f32>;
@group(0) @binding(5) var<storage, read_write> keys: array<f32>;
@group(0) @binding(6) var<storage, read_write> values: array<f32>;`;

/** Threads a workgroup in the serial layouts. */
const SERIAL = 64;

/**
 * kvWriteKernel's software layout (a software adapter runs a workgroup barrier as a context switch
 * on the CPU): one thread a (query row, key head), no workgroup memory. Dispatch
 * (ceil(rows * kvHeads / 64)). The same bindings.
 */
export function kvWriteSerialKernel(spec: AttentionSpec): string {
  const { heads: H, kvHeads: Hkv, headDim: hd } = spec;
  checkSpec(spec);
  return `${serialBindings}

@compute @workgroup_size(${SERIAL})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  _ = &params;
  let r = id.x / ${Hkv}u;
  let j = id.x % ${Hkv}u;
  if (r >= step.rows) { return; }
  let cacheRow = rows[r * ${ROW_WORDS}u];
  let slot = rows[r * ${ROW_WORDS}u + 1u];
  var raw: array<f32, ${hd}>;
  var key: array<f32, ${hd}>;
  let keyAt = r * ${spec.qkvStride}u + ${H * hd}u + j * ${hd}u;
  let valueAt = keyAt + ${Hkv * hd}u;${rotatedSerial(spec, 'key', 'keyAt', spec.qkNorm?.key ?? null)}
  let cell = ((cacheRow * ${Hkv}u + j) * step.capacity + slot) * ${hd}u;
  for (var i = 0u; i < ${hd}u; i++) {
    keys[cell + i] = key[i];
    values[cell + i] = qkv[valueAt + i];
  }
}
`;
}

/**
 * attentionKernel's software layout: one thread a (query row, head), an online softmax over the
 * slots one at a time. Dispatch (ceil(rows * heads / 64)). The same bindings.
 */
export function attentionSerialKernel(spec: AttentionSpec, decode: boolean): string {
  const { heads: H, kvHeads: Hkv, headDim: hd } = spec;
  checkSpec(spec);
  const g = H / Hkv;
  const cell = (s: string) => `((cacheRow * ${Hkv}u + j) * step.capacity + ${s}) * ${hd}u`;
  const newest = decode
    ? `
  var key: array<f32, ${hd}>;
  var newValue: array<f32, ${hd}>;
  let keyAt = r * ${spec.qkvStride}u + ${H * hd}u + j * ${hd}u;
  let valueAt = keyAt + ${Hkv * hd}u;${rotatedSerial(spec, 'key', 'keyAt', spec.qkNorm?.key ?? null)}
  for (var i = 0u; i < ${hd}u; i++) { newValue[i] = qkv[valueAt + i]; }
  if (h % ${g}u == 0u) {
    let at = ${cell('slot')};
    for (var i = 0u; i < ${hd}u; i++) {
      keys[at + i] = key[i];
      values[at + i] = newValue[i];
    }
  }`
    : '';
  const score = decode
    ? `if (s == slot) {
        for (var d = 0u; d < ${hd}u; d++) { dot += query[d] * key[d]; }
      } else {
        let at = ${cell('s')};
        for (var d = 0u; d < ${hd}u; d++) { dot += query[d] * keys[at + d]; }
      }`
    : `{
        let at = ${cell('s')};
        for (var d = 0u; d < ${hd}u; d++) { dot += query[d] * keys[at + d]; }
      }`;
  const accumulate = decode
    ? `if (s == slot) {
        for (var d = 0u; d < ${hd}u; d++) { acc[d] = acc[d] * rescale + p * newValue[d]; }
      } else {
        let at = ${cell('s')};
        for (var d = 0u; d < ${hd}u; d++) { acc[d] = acc[d] * rescale + p * values[at + d]; }
      }`
    : `{
        let at = ${cell('s')};
        for (var d = 0u; d < ${hd}u; d++) { acc[d] = acc[d] * rescale + p * values[at + d]; }
      }`;
  return `${serialBindings}
@group(0) @binding(7) var<storage, read_write> context: array<f32>;

@compute @workgroup_size(${SERIAL})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  _ = &params;
  let r = id.x / ${H}u;
  let h = id.x % ${H}u;
  if (r >= step.rows) { return; }
  let cacheRow = rows[r * ${ROW_WORDS}u];
  let slot = rows[r * ${ROW_WORDS}u + 1u];
  let hide0 = rows[r * ${ROW_WORDS}u + 2u];
  let hide1 = rows[r * ${ROW_WORDS}u + 3u];
  let hide2 = rows[r * ${ROW_WORDS}u + 4u];
  let j = h / ${g}u;
  var raw: array<f32, ${hd}>;
  var query: array<f32, ${hd}>;
  let queryAt = r * ${spec.qkvStride}u + h * ${hd}u;${rotatedSerial(spec, 'query', 'queryAt', spec.qkNorm?.query ?? null)}
  for (var i = 0u; i < ${hd}u; i++) { query[i] = query[i] * ${f32Literal(1 / Math.sqrt(hd))}; }${newest}
  var runningMax = -3.0e38;
  var runningSum = 0.0;
  var acc: array<f32, ${hd}>;
  for (var s = hide0; s <= slot; s++) {
    if (s >= hide1 && s < hide2) { continue; }
    var dot = 0.0;
    ${score}
    let newMax = max(runningMax, dot);
    let rescale = exp(runningMax - newMax);
    let p = exp(dot - newMax);
    runningSum = runningSum * rescale + p;
    runningMax = newMax;
    ${accumulate}
  }
  let out = r * ${H * hd}u + h * ${hd}u;
  for (var d = 0u; d < ${hd}u; d++) { context[out + d] = acc[d] / runningSum; }
}
`;
}
