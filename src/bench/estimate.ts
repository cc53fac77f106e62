// The bench's `estimate` section: the page's cost estimate (step_cost.ts at WASM's calibration,
// step_calibration.ts) against the demo model's default run measured in the same process. Keys:
//   estimate_demo_step_s          the estimate the model card shows for the demo (its episodes as
//                                 DEMO_GENERATION records them), seconds
//   measured_demo_step_s          the median wall time of the run's steps after the first
//   estimate_demo_vs_step         the two's ratio (the target: within 1.5x either way)
//   estimate_demo_own_vs_step     the estimate at this run's own episodes (its turns, tokens and
//                                 decoding steps): the fixed costs and rates alone, whatever
//                                 the episodes
//   estimate_demo_rollout_vs_measured, estimate_demo_update_vs_measured   the same by phase
//   demo_generation               this run's episodes, as DEMO_GENERATION records them
// `npm run bench -- --only estimate`: the run's 30 steps (about two minutes on 2 cores), as
// DEMO_GENERATION counts its episodes over the whole run (they lengthen as the model learns to
// run code).
import { nodeModelSource, openConfigSandbox } from '../cli/node_run.ts';
import { selectBackend } from '../kernels/backend.ts';
import { matmulThreadCount } from '../kernels/matmul/kernels.ts';
import { estimateStepSeconds } from '../model_files/step_cost.ts';
import { DEMO_GENERATION, wasmSpeed } from '../model_files/step_calibration.ts';
import { presetConfig } from '../run/presets.ts';
import { resolveRun } from '../run/resolve.ts';
import type { StepMetrics } from '../rl/types.ts';
import { createTrainer, loadPolicy } from '../service/session.ts';
import { median } from './model_setup.ts';

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/** A step's wall time (its timeline's, where it has one). */
export function stepWallSeconds(m: StepMetrics): number {
  return m.timeline?.seconds_wall ?? m.seconds_generate + m.seconds_sandbox + m.seconds_train;
}

export async function benchEstimate(steps = 30): Promise<Record<string, unknown>> {
  await selectBackend({ force: 'wasm', threads: 'auto' });
  const config = presetConfig('default', { steps, evalEvery: 0 });
  const { source } = nodeModelSource('demo');
  const executor = await openConfigSandbox(config);
  const policy = await loadPolicy(source, config, 'demo');
  const rows: StepMetrics[] = [];
  try {
    const trainer = createTrainer(policy, executor, config);
    for (let step = 0; step < steps; step++) {
      rows.push(await trainer.runStep());
      process.stderr.write(`[bench] estimate: step ${step + 1} of ${steps}\n`);
    }
    trainer.dispose();
  } finally {
    await executor.close();
  }
  const model = policy.model.config;
  policy.dispose();
  const later = rows.slice(1); // the first step warms the kernels up
  const speed = wasmSpeed(matmulThreadCount());
  const shape = resolveRun(config).stepShape;
  const estimate = estimateStepSeconds(model, { ...shape, generation: DEMO_GENERATION }, speed);
  const own = {
    turns: mean(later.map((m) => m.turns_mean)),
    tokens: mean(later.map((m) => m.generated_tokens_mean)),
    decodeSteps: mean(later.map((m) => m.decode_steps ?? 0)),
  };
  const ownEstimate = estimateStepSeconds(model, { ...shape, generation: own }, speed);
  const measured = median(later.map(stepWallSeconds));
  const rollout = median(later.map((m) => stepWallSeconds(m) - m.seconds_train));
  const update = median(later.map((m) => m.seconds_train));
  return {
    estimate_demo_step_s: round(estimate.seconds),
    measured_demo_step_s: round(measured),
    estimate_demo_vs_step: round(estimate.seconds / measured),
    estimate_demo_own_vs_step: round(ownEstimate.seconds / measured),
    estimate_demo_rollout_vs_measured: round(ownEstimate.rolloutSeconds / rollout),
    estimate_demo_update_vs_measured: round(ownEstimate.updateSeconds / update),
    demo_generation: {
      turns: round(own.turns),
      tokens: round(own.tokens, 1),
      decodeSteps: Math.round(own.decodeSteps),
    },
    estimate_threads: matmulThreadCount(),
  };
}
