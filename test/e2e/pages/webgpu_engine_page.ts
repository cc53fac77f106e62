/// <reference types="@webgpu/types" />
// Test harness page for test/e2e/webgpu_engine.test.ts: the WebGPU decoding engine's kernels one by
// one against float64 references, in both layouts (a GPU's and a software adapter's), and the
// engine in generate() against WASM on the fixture models; plus a census of what decoding a token
// asks of WebGPU.
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../../src/kernels/backend.ts';
import { setSwitches } from '../../../src/kernels/switches.ts';
import { startGpuCensus } from '../../../src/kernels/webgpu/gpu_census.ts';
import { gpuCounts, kernelLayout } from '../../../src/kernels/webgpu/gpu.ts';
import {
  attentionKernel,
  attentionSerialKernel,
  kvWriteKernel,
  kvWriteSerialKernel,
} from '../../../src/kernels/webgpu/wgsl_attention.ts';
import {
  linearKernel,
  linearWorkgroups,
  type LinearSpec,
} from '../../../src/kernels/webgpu/wgsl_linear.ts';
import {
  embedKernel,
  finalNormKernel,
  sampleBlocks,
  sampleMaxKernel,
  samplePickKernel,
  sampleSumKernel,
} from '../../../src/kernels/webgpu/wgsl_tokens.ts';
import { tokenLogprobs } from '../../../src/model/logprobs.ts';
import { CausalLM } from '../../../src/model/model.ts';
import { adapterVariables } from '../../../src/model/params.ts';
import {
  floatToHalfBits,
  randomWeights,
  sixteenBitWeights,
} from '../../../src/model/random_weights.ts';
import { Rng } from '../../../src/model/rng.ts';
import { generate } from '../../../src/model/sample.ts';
import { parseModelConfig, type ModelConfig } from '../../../src/model_files/hf_config.ts';
import { readJson } from '../../../src/model_files/source.ts';
import { urlSource } from '../../../src/model_files/url_source.ts';
import { readWeightFiles } from '../../../src/model_files/weight_files.ts';
import { floatToBf16Bits } from '../../../src/model_files/safetensors_write.ts';

const wasmPaths = new URL('./tfjs-wasm/', location.href).href;
const bf16 = (x: number) =>
  new Float32Array(new Uint32Array([floatToBf16Bits(x) << 16]).buffer)[0]!;
const widenF16 = (bits: number) => {
  const sign = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 31;
  const f = bits & 1023;
  return e === 0 ? sign * f * 2 ** -24 : sign * (1 + f / 1024) * 2 ** (e - 15);
};

/** Largest |a - b| / max(1, |b|) over b's length (a read-back buffer may be padded past it). */
function worst(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length < b.length) return Number.POSITIVE_INFINITY;
  let out = 0;
  for (let i = 0; i < b.length; i++)
    out = Math.max(out, Math.abs(a[i]! - b[i]!) / Math.max(1, Math.abs(b[i]!)));
  return out;
}

/** One dispatch sequence of WGSL kernels over shared buffers; reads every storage buffer back. */
async function runKernels(
  device: GPUDevice,
  kernels: { code: string; bindings: number[]; grid: [number, number] }[],
  buffers: (ArrayBufferView | { uniform: ArrayBufferView })[],
): Promise<ArrayBuffer[]> {
  const made = buffers.map((b) => {
    const data = 'uniform' in b ? b.uniform : b;
    const buffer = device.createBuffer({
      size: Math.max(16, Math.ceil(data.byteLength / 16) * 16),
      usage:
        'uniform' in b
          ? GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST
          : GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC,
    });
    device.queue.writeBuffer(buffer, 0, data as ArrayBufferView<ArrayBuffer>);
    return buffer;
  });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  device.pushErrorScope('validation');
  for (const kernel of kernels) {
    const module = device.createShaderModule({ code: kernel.code });
    const pipeline = device.createComputePipeline({
      layout: 'auto',
      compute: { module, entryPoint: 'main' },
    });
    pass.setPipeline(pipeline);
    pass.setBindGroup(
      0,
      device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: kernel.bindings.map((index, binding) => ({
          binding,
          resource: { buffer: made[index]! },
        })),
      }),
    );
    pass.dispatchWorkgroups(...kernel.grid);
  }
  pass.end();
  const error = await device.popErrorScope();
  if (error) throw new Error(error.message);
  const reads = made.map((buffer, i) => {
    if ('uniform' in buffers[i]!) return null;
    const staging = device.createBuffer({
      size: buffer.size,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    encoder.copyBufferToBuffer(buffer, 0, staging, 0, buffer.size);
    return staging;
  });
  device.queue.submit([encoder.finish()]);
  return Promise.all(
    reads.map(async (staging) => {
      if (!staging) return new ArrayBuffer(0);
      await staging.mapAsync(GPUMapMode.READ);
      const copy = staging.getMappedRange().slice(0);
      staging.destroy();
      return copy;
    }),
  );
}

/** The step uniform: rows, lora, slots, scale, greedy, capacity. */
const step = (
  rows: number,
  extra: { slots?: number; scale?: number; greedy?: boolean; capacity?: number } = {},
) => {
  const data = new DataView(new ArrayBuffer(32));
  data.setUint32(0, rows, true);
  data.setUint32(4, 1, true);
  data.setUint32(8, extra.slots ?? 0, true);
  data.setFloat32(12, extra.scale ?? 1, true);
  data.setUint32(16, extra.greedy ? 1 : 0, true);
  data.setUint32(20, extra.capacity ?? 0, true);
  return { uniform: new Uint8Array(data.buffer) };
};

/** 16-bit weights of a kind, packed two a word, rows padded; and their exact values. */
function packed(rows: number, cols: number, kind: 'bf16' | 'f16', rng: Rng) {
  const words = Math.ceil(cols / 2);
  const bits = new Uint16Array(rows * words * 2);
  const values = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) {
      const x = (rng.uniform() - 0.5) * 0.6;
      const b = kind === 'bf16' ? floatToBf16Bits(x) : floatToHalfBits(x);
      bits[r * words * 2 + c] = b;
      values[r * cols + c] = kind === 'bf16' ? bf16(x) : widenF16(b);
    }
  return { words: new Uint32Array(bits.buffer), values };
}

const random = (n: number, rng: Rng, scale = 1) =>
  Float32Array.from({ length: n }, () => (rng.uniform() - 0.5) * 2 * scale);

/** The linear kernels of every epilogue against a float64 reference: worst relative error each. */
async function linearChecks(device: GPUDevice, slices: number, kind: 'bf16' | 'f16') {
  const rng = new Rng(slices * 7 + (kind === 'f16' ? 1 : 0));
  const out: Record<string, number> = {};
  for (const [name, K, rows, epilogue, outputs, norm, lora] of [
    ['qkv odd width, 3 rows', 37, 3, 'store', [20, 9, 9], true, true],
    ['o 17 rows (two tiles)', 24, 17, 'residual', [30], false, true],
    ['gate/up SwiGLU', 22, 5, 'swiglu', [41, 41], true, true],
    ['head, 3 vocabulary chunks', 16, 2, 'store', [70, 70, 33], false, false],
  ] as const) {
    const rank = 3;
    const rowsPerTile = Math.min(16, rows);
    const total = epilogue === 'swiglu' ? outputs[0]! : outputs.reduce((a, b) => a + b, 0);
    let offset = 0;
    const take = (n: number) => {
      offset += n;
      return offset - n;
    };
    const normAt = norm ? take(K) : 0;
    let start = 0;
    const segments = outputs.map((o) => {
      const seg = {
        outputs: o,
        bias: lora ? take(o) : null,
        lora: lora ? { a: take(K * rank), b: take(rank * o), rank, scale: 1.5 } : null,
        outOffset: epilogue === 'swiglu' ? 0 : start,
      };
      start += o;
      return seg;
    });
    const params = random(Math.max(1, offset), rng, 0.5);
    const x = random(rows * K, rng);
    const residual = random(rows * total, rng);
    const weights = outputs.map((o) => packed(o, K, kind, rng));
    const spec: LinearSpec = {
      kind,
      inputs: K,
      rowsPerTile,
      norm: norm ? { weight: normAt, eps: 1e-5 } : null,
      segments,
      epilogue,
      outputStride: total,
      slices,
    };
    const bindings = [
      0,
      1,
      2,
      3,
      ...(epilogue === 'residual' ? [4] : []),
      ...weights.map((_, i) => 5 + i),
    ];
    const [, , , result] = await runKernels(
      device,
      [
        {
          code: linearKernel(spec),
          bindings,
          grid: [linearWorkgroups(spec), Math.ceil(rows / rowsPerTile)],
        },
      ],
      [
        step(rows),
        params,
        x,
        new Float32Array(rows * total),
        residual,
        ...weights.map((w) => w.words),
      ],
    );
    // the float64 reference
    const expected = new Float64Array(rows * total);
    for (let n = 0; n < rows; n++) {
      let rinv = 1;
      if (norm) {
        let sum = 0;
        for (let k = 0; k < K; k++) sum += x[n * K + k]! ** 2;
        rinv = 1 / Math.sqrt(sum / K + 1e-5);
      }
      const xn = Array.from(
        { length: K },
        (_, k) => x[n * K + k]! * rinv * (norm ? params[normAt + k]! : 1),
      );
      const value = (s: number, c: number) => {
        const seg = segments[s]!;
        let y = 0;
        for (let k = 0; k < K; k++) y += xn[k]! * weights[s]!.values[c * K + k]!;
        if (seg.bias !== null) y += params[seg.bias + c]!;
        if (seg.lora) {
          for (let j = 0; j < rank; j++) {
            let u = 0;
            for (let k = 0; k < K; k++) u += xn[k]! * params[seg.lora.a + k * rank + j]!;
            y += u * seg.lora.scale * params[seg.lora.b + j * seg.outputs + c]!;
          }
        }
        return y;
      };
      if (epilogue === 'swiglu') {
        for (let c = 0; c < total; c++) {
          const g = value(0, c);
          expected[n * total + c] = (g / (1 + Math.exp(-g))) * value(1, c);
        }
      } else {
        segments.forEach((seg, s) => {
          for (let c = 0; c < seg.outputs; c++) {
            const at = n * total + seg.outOffset + c;
            expected[at] = value(s, c) + (epilogue === 'residual' ? residual[at]! : 0);
          }
        });
      }
    }
    out[name] = worst(new Float32Array(result!), expected);
  }
  return out;
}

/** RoPE rows (cos then sin) of given positions, as the engine reads them. */
function ropeRows(positions: number[], hd: number, theta = 10000): Float32Array {
  const out = new Float32Array(positions.length * 2 * hd);
  positions.forEach((p, r) => {
    for (let i = 0; i < hd / 2; i++) {
      const angle = p / theta ** ((2 * i) / hd);
      for (const at of [i, i + hd / 2]) {
        out[r * 2 * hd + at] = Math.cos(angle);
        out[r * 2 * hd + hd + at] = Math.sin(angle);
      }
    }
  });
  return out;
}

/** The attention kernels (decode; prefill's write then attend) against a float64 reference. */
async function attentionChecks(device: GPUDevice, serial: boolean) {
  const rng = new Rng(serial ? 3 : 4);
  const [H, Hkv, hd, capacity] = [4, 2, 8, 12];
  const g = H / Hkv;
  const qkvStride = (H + 2 * Hkv) * hd;
  const out: Record<string, number> = {};
  for (const decode of [true, false]) {
    const qkNorm = !decode;
    const params = random(2 * hd, rng, 1);
    // two sequences: cache rows 1 and 0; slots [0, hide0) and [hide1, hide2) hidden
    const places = decode
      ? [
          { cacheRow: 1, slot: 9, hide0: 2, hide1: 4, hide2: 6 },
          { cacheRow: 0, slot: 9, hide0: 0, hide1: 0, hide2: 0 },
        ]
      : [5, 6, 7].map((slot) => ({ cacheRow: 0, slot, hide0: 1, hide1: 2, hide2: 3 }));
    const rows = places.length;
    const qkv = random(rows * qkvStride, rng);
    const rope = ropeRows(
      places.map((p) => p.slot + 3),
      hd,
    );
    const keys = random(2 * Hkv * capacity * hd, rng);
    const values = random(2 * Hkv * capacity * hd, rng);
    const placeWords = new Uint32Array(rows * 8);
    places.forEach((p, i) =>
      placeWords.set([p.cacheRow, p.slot, p.hide0, p.hide1, p.hide2], i * 8),
    );
    const spec = {
      heads: H,
      kvHeads: Hkv,
      headDim: hd,
      qkNorm: qkNorm ? { query: 0, key: hd, eps: 1e-6 } : null,
      qkvStride,
    };
    const grid = (heads: number): [number, number] =>
      serial ? [Math.ceil((rows * heads) / 64), 1] : [rows, heads];
    const kernels = decode
      ? [
          {
            code: (serial ? attentionSerialKernel : attentionKernel)(spec, true),
            bindings: [0, 1, 2, 3, 4, 5, 6, 7],
            grid: grid(H),
          },
        ]
      : [
          {
            code: (serial ? kvWriteSerialKernel : kvWriteKernel)(spec),
            bindings: [0, 1, 2, 3, 4, 5, 6],
            grid: grid(Hkv),
          },
          {
            code: (serial ? attentionSerialKernel : attentionKernel)(spec, false),
            bindings: [0, 1, 2, 3, 4, 5, 6, 7],
            grid: grid(H),
          },
        ];
    const result = await runKernels(device, kernels, [
      step(rows, { capacity }),
      params,
      qkv,
      placeWords,
      rope,
      keys,
      values,
      new Float32Array(rows * H * hd),
    ]);
    // reference: the new keys (normed, rotated) and values into the cache, then attention
    const cache = { keys: Float64Array.from(keys), values: Float64Array.from(values) };
    const rotate = (from: number, r: number, norm: number | null) => {
      let v = Array.from({ length: hd }, (_, i) => qkv[from + i]!);
      if (norm !== null) {
        const rinv = 1 / Math.sqrt(v.reduce((s, x) => s + x * x, 0) / hd + 1e-6);
        v = v.map((x, i) => x * rinv * params[norm + i]!);
      }
      return v.map((x, i) => {
        const turned = i < hd / 2 ? -v[i + hd / 2]! : v[i - hd / 2]!;
        return x * rope[r * 2 * hd + i]! + turned * rope[r * 2 * hd + hd + i]!;
      });
    };
    const cell = (row: number, j: number, s: number) => ((row * Hkv + j) * capacity + s) * hd;
    places.forEach((p, r) => {
      for (let j = 0; j < Hkv; j++) {
        const key = rotate(r * qkvStride + H * hd + j * hd, r, qkNorm ? hd : null);
        for (let i = 0; i < hd; i++) {
          cache.keys[cell(p.cacheRow, j, p.slot) + i] = key[i]!;
          cache.values[cell(p.cacheRow, j, p.slot) + i] =
            qkv[r * qkvStride + (H + Hkv) * hd + j * hd + i]!;
        }
      }
    });
    const expected = new Float64Array(rows * H * hd);
    places.forEach((p, r) => {
      for (let h = 0; h < H; h++) {
        const j = Math.floor(h / g);
        const q = rotate(r * qkvStride + h * hd, r, qkNorm ? 0 : null).map(
          (x) => x / Math.sqrt(hd),
        );
        const visible = [...Array(p.slot + 1).keys()].filter(
          (s) => s >= p.hide0 && !(s >= p.hide1 && s < p.hide2),
        );
        const scores = visible.map((s) =>
          q.reduce((sum, x, i) => sum + x * cache.keys[cell(p.cacheRow, j, s) + i]!, 0),
        );
        const max = Math.max(...scores);
        const weights = scores.map((x) => Math.exp(x - max));
        const total = weights.reduce((a, b) => a + b, 0);
        for (let i = 0; i < hd; i++)
          expected[r * H * hd + h * hd + i] = visible.reduce(
            (sum, s, k) => sum + (weights[k]! / total) * cache.values[cell(p.cacheRow, j, s) + i]!,
            0,
          );
      }
    });
    const label = decode ? 'decode' : 'prefill, head norms';
    out[`attention ${label}`] = worst(new Float32Array(result[7]!), expected);
    out[`cache keys ${label}`] = worst(new Float32Array(result[5]!), cache.keys);
    out[`cache values ${label}`] = worst(new Float32Array(result[6]!), cache.values);
  }
  return out;
}

/** The sampling passes against sampleToken's rule in float64, greedy and at temperature 0.7. */
async function samplingChecks(device: GPUDevice) {
  const rng = new Rng(9);
  const V = 2500; // 3 blocks of 1024
  const rows = 3;
  const logits = random(rows * V, rng, 6);
  logits[1 * V + 2047] = 30; // a row whose max sits in a later block
  const out: Record<string, number> = {};
  for (const temperature of [0, 0.7]) {
    const uniforms = Float32Array.from({ length: rows }, () => rng.uniform());
    const sampling = new Uint32Array(2 * rows);
    const bits = new Uint32Array(uniforms.buffer);
    for (let b = 0; b < rows; b++) [sampling[2 * b], sampling[2 * b + 1]] = [b, bits[b]!];
    const scale = temperature > 0 ? 1 / temperature : 1;
    const blocks = sampleBlocks(V);
    const result = await runKernels(
      device,
      [
        { code: sampleMaxKernel(V), bindings: [0, 1, 2, 3], grid: [blocks, rows] },
        { code: sampleSumKernel(V), bindings: [0, 1, 2, 3], grid: [blocks, rows] },
        { code: samplePickKernel(V), bindings: [0, 1, 2, 3, 4], grid: [rows, 1] },
      ],
      [
        step(rows, { scale, greedy: temperature === 0 }),
        logits,
        sampling,
        new Float32Array(rows * blocks * 4),
        new Uint32Array(2 * rows),
      ],
    );
    const picked = new Uint32Array(result[4]!);
    const pickedFloats = new Float32Array(result[4]!);
    let idsEqual = 1;
    let logprobError = 0;
    for (let b = 0; b < rows; b++) {
      const row = logits.subarray(b * V, (b + 1) * V);
      const max = Math.max(...row);
      const w = Array.from(row, (z) => Math.exp((z - max) * scale));
      const total = w.reduce((a, c) => a + c, 0);
      let id = row.indexOf(max);
      if (temperature > 0) {
        const threshold = uniforms[b]! * total;
        let cumulative = 0;
        for (let v = 0; v < V; v++) {
          cumulative += w[v]!;
          if (cumulative > threshold) {
            id = v;
            break;
          }
        }
      }
      if (picked[2 * b] !== id) idsEqual = 0;
      logprobError = Math.max(
        logprobError,
        Math.abs(pickedFloats[2 * b + 1]! - ((row[id]! - max) * scale - Math.log(total))),
      );
    }
    out[`sampling ids equal at T ${temperature}`] = idsEqual;
    out[`sampling log-prob at T ${temperature}`] = logprobError;
  }
  // the embedding's rows (two vocabulary chunks) and the final norm of gathered rows
  const D = 6;
  const chunks = [packed(5, D, 'bf16', rng), packed(4, D, 'bf16', rng)];
  const tokens = Uint32Array.of(7, 1, 4);
  const [, , x] = await runKernels(
    device,
    [
      {
        code: embedKernel(
          D,
          [
            { start: 0, rows: 5 },
            { start: 5, rows: 4 },
          ],
          'bf16',
        ),
        bindings: [0, 1, 2, 3, 4],
        grid: [3, 1],
      },
    ],
    [step(3), tokens, new Float32Array(3 * D), chunks[0]!.words, chunks[1]!.words],
  );
  const rowOf = (id: number) =>
    id < 5
      ? chunks[0]!.values.subarray(id * D, (id + 1) * D)
      : chunks[1]!.values.subarray((id - 5) * D, (id - 4) * D);
  out.embedding = worst(
    new Float32Array(x!),
    [...tokens].flatMap((id) => [...rowOf(id)]),
  );
  const normWeight = random(D, rng);
  const rowsIn = random(4 * D, rng);
  const [, , , , xn] = await runKernels(
    device,
    [{ code: finalNormKernel(D, 0, 1e-5), bindings: [0, 1, 2, 3, 4], grid: [2, 1] }],
    [step(2), normWeight, rowsIn, Uint32Array.of(3, 1), new Float32Array(2 * D)],
  );
  const normed = [3, 1].flatMap((r) => {
    const v = rowsIn.subarray(r * D, (r + 1) * D);
    const rinv = 1 / Math.sqrt(v.reduce((s, a) => s + a * a, 0) / D + 1e-5);
    return [...v].map((a, i) => a * rinv * normWeight[i]!);
  });
  out['final norm'] = worst(new Float32Array(xn!), normed);
  return out;
}

/** A fixture's weights, 16-bit: as shipped (BF16 fixtures), or its float32 ones rounded to F16. */
async function fixture(name: string, kind: 'as shipped' | 'F16') {
  const source = urlSource(new URL(`./models/${name}/`, location.href).href, name);
  const config = parseModelConfig(await readJson(source, 'config.json'), name);
  const files = await readWeightFiles(source);
  return { config, weights: kind === 'as shipped' ? files : sixteenBitWeights(files, 'F16') };
}

const lora = (seed: number) => ({
  kind: 'lora' as const,
  lora: {
    rank: 4,
    alpha: 8,
    dropout: 0,
    targetModules: [
      'q_proj',
      'k_proj',
      'v_proj',
      'o_proj',
      'gate_proj',
      'up_proj',
      'down_proj',
    ] as never,
    seed,
  },
});

const harness = {
  /** Every kernel against its float64 reference, in the GPU's layout and a software adapter's. */
  async kernels() {
    await selectBackend({ force: 'webgpu', wasmPaths });
    const device = (tf.backend() as unknown as { device: GPUDevice }).device;
    const out: Record<string, number> = {};
    for (const slices of [32, 1])
      for (const kind of ['bf16', 'f16'] as const)
        for (const [k, v] of Object.entries(await linearChecks(device, slices, kind)))
          out[`linear ${k}, ${kind}, ${slices} a column`] = v;
    for (const serial of [false, true])
      for (const [k, v] of Object.entries(await attentionChecks(device, serial)))
        out[`${k}${serial ? ' (serial)' : ''}`] = v;
    Object.assign(out, await samplingChecks(device));
    return out;
  },

  /**
   * A fixture (16-bit, with random LoRA adapters) on `backend`: greedy ids over 32 tokens, sampled
   * ids of three sequences over 24 (shared prompt, padding), two turns through the prefix cache
   * left out; and the loss and gradient norm of a fixed batch.
   */
  async run(
    backend: 'webgpu' | 'wasm',
    name: string,
    kind: 'as shipped' | 'F16',
    layout: 'software' | 'hardware' | null,
  ) {
    await selectBackend({ force: backend, wasmPaths });
    kernelLayout.force = layout;
    const { config, weights } = await fixture(name, kind);
    const model = CausalLM.fromWeights(config, weights, lora(5));
    const rng = new Rng(21);
    for (const variable of adapterVariables(model.params).values())
      variable.assign(
        tf.tensor(
          Float32Array.from({ length: variable.size }, () => (rng.uniform() - 0.5) * 0.3),
          variable.shape,
        ),
      );
    const before = gpuCounts.decodeSteps;
    const greedy = await generate(model, [[3, 14, 15, 92, 65]], {
      maxNewTokens: 32,
      temperature: 0,
      eosIds: [],
    });
    const sampled = await generate(
      model,
      [
        [3, 14, 15, 92, 65],
        [3, 14, 15, 92, 65],
        [27, 18],
      ],
      { maxNewTokens: 24, temperature: 0.9, seed: 7, eosIds: [] },
    );
    const engineSteps = gpuCounts.decodeSteps - before;
    const ids = [
      [3, 14, 15, 92, 65, 35, 89, 79, 32, 38],
      [3, 14, 15, 92, 65, 2, 71],
    ];
    const variables = [...model.trainableVariables().values()];
    const { value, grads } = tf.variableGrads(
      () => tf.neg(tf.sum(tokenLogprobs(model, ids, { temperature: 0.9 }))) as tf.Scalar,
      variables,
    );
    const loss = (await value.data())[0]!;
    const norm = Math.sqrt(
      (await Promise.all(Object.values(grads).map((g) => tf.sum(tf.square(g)).data()))).reduce(
        (s, x) => s + x[0]!,
        0,
      ),
    );
    tf.dispose([value, ...Object.values(grads)]);
    model.dispose();
    kernelLayout.force = null;
    return {
      greedy: greedy.ids[0]!,
      greedyLogprobs: greedy.logprobs[0]!,
      sampled: sampled.ids,
      sampledLogprobs: sampled.logprobs,
      loss,
      norm,
      engineSteps,
    };
  },

  /**
   * What decoding a token asks of WebGPU with `layers` layers (16-bit random weights, LoRA on),
   * per token from two generations' difference, and objects created after a warm-up. With
   * `engine` false, the tfjs ops decode (the test's control).
   */
  async census(layers: number, engine: boolean) {
    await selectBackend({ force: 'webgpu', wasmPaths });
    const previous = setSwitches({ gpuDecoding: engine });
    const config: ModelConfig = parseModelConfig({
      model_type: 'qwen2',
      vocab_size: 600,
      hidden_size: 32,
      intermediate_size: 48,
      num_hidden_layers: layers,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      max_position_embeddings: 128,
      tie_word_embeddings: true,
    });
    const weights = sixteenBitWeights(randomWeights(config, 1), 'BF16');
    const model = CausalLM.fromWeights(config, weights, lora(1));
    const prompts = [
      [5, 6, 7, 8],
      [9, 10, 11, 12],
    ];
    const run = (tokens: number) =>
      generate(model, prompts, { maxNewTokens: tokens, temperature: 0.8, seed: 2, eosIds: [] });
    await run(6);
    const census = startGpuCensus();
    const tally = async (tokens: number) => {
      census.reset();
      await run(tokens);
      return { ...census.tally };
    };
    const [short, long] = [await tally(2), await tally(6)];
    census.stop();
    model.dispose();
    setSwitches(previous);
    return {
      dispatches: (long.dispatches - short.dispatches) / 4,
      submits: (long.submits - short.submits) / 4,
      readbackPerSequence: (long.readbackBytes - short.readbackBytes) / 4 / prompts.length,
      created: short.created + long.created,
    };
  },
};

(window as unknown as { engineHarness: typeof harness }).engineHarness = harness;
document.getElementById('state')!.textContent = 'ready';
