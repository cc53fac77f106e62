// AdamW's shaders on WebGPU (adamw.ts runs them): the update, and the global norm's two passes.
import { WORKGROUP } from './wgsl_common.ts';

/** Numbers a workgroup of the update and of the norm's first pass takes (4 a thread). */
export const PER_GROUP = 4 * WORKGROUP;

/** One AdamW step over `count` flat numbers, 4 a thread (adamw.ts has the arithmetic). */
export const UPDATE = `struct Scalars { count: u32, b1: f32, c1: f32, b2: f32, c2: f32, step: f32, invC2: f32, eps: f32, decay: f32, scale: f32 };
@group(0) @binding(0) var<uniform> s: Scalars;
@group(0) @binding(1) var<storage, read> g: array<f32>;
@group(0) @binding(2) var<storage, read_write> p: array<f32>;
@group(0) @binding(3) var<storage, read_write> m: array<f32>;
@group(0) @binding(4) var<storage, read_write> v: array<f32>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let first = ((group.y * groups.x + group.x) * ${WORKGROUP}u + lid) * 4u;
  for (var i = first; i < min(first + 4u, s.count); i++) {
    let grad = g[i] * s.scale;
    let m1 = m[i] * s.b1 + grad * s.c1;
    let v1 = v[i] * s.b2 + (grad * grad) * s.c2;
    m[i] = m1;
    v[i] = v1;
    p[i] = p[i] * s.decay - (m1 * s.step) / (sqrt(v1 * s.invC2) + s.eps);
  }
}
`;

/** The norm's first pass: each workgroup's sum of squares. */
export const SQUARES = `struct Count { count: u32 };
@group(0) @binding(0) var<uniform> c: Count;
@group(0) @binding(1) var<storage, read> g: array<f32>;
@group(0) @binding(2) var<storage, read_write> partial: array<f32>;
var<workgroup> sums: array<f32, ${WORKGROUP}>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let index = group.y * groups.x + group.x;
  let first = (index * ${WORKGROUP}u + lid) * 4u;
  var sum = 0.0;
  for (var i = first; i < min(first + 4u, c.count); i++) { sum += g[i] * g[i]; }
  sums[lid] = sum;
  workgroupBarrier();
  for (var stride = ${WORKGROUP / 2}u; stride > 0u; stride >>= 1u) {
    if (lid < stride) { sums[lid] = sums[lid] + sums[lid + stride]; }
    workgroupBarrier();
  }
  if (lid == 0u) { partial[index] = sums[0]; }
}
`;

/** The norm's second pass: the partial sums' total, in one workgroup. */
export const TOTAL = `struct Count { count: u32 };
@group(0) @binding(0) var<uniform> c: Count;
@group(0) @binding(1) var<storage, read> partial: array<f32>;
@group(0) @binding(2) var<storage, read_write> total: array<f32>;
var<workgroup> sums: array<f32, ${WORKGROUP}>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32) {
  var sum = 0.0;
  for (var i = lid; i < c.count; i += ${WORKGROUP}u) { sum += partial[i]; }
  sums[lid] = sum;
  workgroupBarrier();
  for (var stride = ${WORKGROUP / 2}u; stride > 0u; stride >>= 1u) {
    if (lid < stride) { sums[lid] = sums[lid] + sums[lid + stride]; }
    workgroupBarrier();
  }
  if (lid == 0u) { total[0] = sums[0]; }
}
`;
