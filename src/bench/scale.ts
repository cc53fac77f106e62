// The bench's `scale` section: real model shapes (SmolLM2-135M, Qwen2.5-0.5B; random weights of
// their exact shapes, cli make-shape-model) trained as a run trains them, each measured in a child
// process (scale_shape.ts) so its WebAssembly memories start empty and their length is its peak.
// Figures (one run, ratios against floors measured in the same child):
//   scale_135m_step_s, scale_05b_step_s        one GRPO step of the page's default run (G 6 x 3
//                                              prompts, 3 turns of 128 tokens) through the sandbox
//   scale_*_step_floor_ratio                   that over its compute floor: the step's FLOPs
//                                              (decoding 2 P a token; forward and dx backward 4 P
//                                              a row per PPO epoch; the reference pass 2 P a row)
//                                              over fma_peak_gflops x threads
//   scale_*_step_work_floor_ratio              the same with the layer recomputation the memory
//                                              targets force counted (2 P a row per PPO epoch)
//   scale_05b_heap_peak_mb                     the WebAssembly memories' peak (heap_usage.ts)
//   scale_05b_estimate_vs_peak                 memory_estimate.ts's total over that peak
//   scale_05b_decode_b1_tok_s, _floor_ratio    batch-1 decoding, and over its floor: the read
//                                              bandwidth (as many threads) over the 16-bit weights
//   scale_05b_decode_b12_tok_s                 batch-12 decoding
// The children's whole reports come back under scale_135m and scale_05b. About 20-30 minutes on 2
// cores, so `npm run bench` runs it only when asked: `npm run bench -- --only scale`.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Runs scale_shape.ts for `preset` in a fresh process and returns its JSON report. */
function measureShape(preset: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        join(repoRoot, 'scripts', 'relaxed-simd.mjs'),
        'src/bench/scale_shape.ts',
        '--preset',
        preset,
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', () => {
      try {
        const report = JSON.parse(out.trim().split('\n').pop() ?? '') as Record<string, unknown>;
        if (typeof report.error === 'string') reject(new Error(`scale ${preset}: ${report.error}`));
        else resolve(report);
      } catch {
        reject(new Error(`scale ${preset}: no report (${out.slice(-300)})`));
      }
    });
  });
}

export async function benchScale(): Promise<Record<string, unknown>> {
  const small = await measureShape('smollm2-135m');
  const large = await measureShape('qwen2.5-0.5b');
  return {
    scale_135m_step_s: small.step_s,
    scale_135m_step_floor_ratio: small.step_floor_ratio,
    scale_135m_step_work_floor_ratio: small.step_work_floor_ratio,
    scale_135m_heap_peak_mb: small.heap_peak_mb,
    scale_135m_estimate_vs_peak: small.estimate_vs_peak,
    scale_05b_step_s: large.step_s,
    scale_05b_step_floor_ratio: large.step_floor_ratio,
    scale_05b_step_work_floor_ratio: large.step_work_floor_ratio,
    scale_05b_heap_peak_mb: large.heap_peak_mb,
    scale_05b_estimate_vs_peak: large.estimate_vs_peak,
    scale_05b_decode_b1_tok_s: large.decode_b1_tok_s,
    scale_05b_decode_b1_floor_ratio: large.decode_b1_floor_ratio,
    scale_05b_decode_b12_tok_s: large.decode_b12_tok_s,
    scale_135m: small,
    scale_05b: large,
  };
}
