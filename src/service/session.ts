// Assembles a run from parts that differ by environment (where model files come from, which sandbox
// runs code): load model + tokenizer for a config, build the KL reference, make the Trainer. The
// CLI (Node) and the trainer worker (browser) both go through here, so they train the same way.
import { CausalLM } from '../model/model.ts';
import { baseVariables, halfWeights } from '../model/params.ts';
import type { ModelSource } from '../model_files/source.ts';
import { resolveRun } from '../run/resolve.ts';
import type { RunConfig } from '../run/config.ts';
import { loadTokenizer } from '../tokenizer/tokenizer.ts';
import type { Tokenizer } from '../tokenizer/tokenizer.ts';
import { Trainer } from '../training/trainer.ts';
import { OverlappedTrainer } from '../training/overlapped_trainer.ts';
import type { RolloutSource } from '../training/rollout_source.ts';
import type { LoadProgress, ModelInfo } from './trainer_api.ts';
import type { CodeExecutor } from '../env/types.ts';
import type { Reference } from '../rl/update.ts';

/** A loaded policy: the model, its tokenizer, its KL reference and what the page shows about it. */
export interface LoadedPolicy {
  model: CausalLM;
  tokenizer: Tokenizer;
  reference: Reference;
  info: ModelInfo;
  dispose(): void;
}

/** Loads model and tokenizer from a source and sets up training as the config says. */
export async function loadPolicy(
  source: ModelSource,
  config: RunConfig,
  origin: ModelInfo['source'],
  onProgress: (progress: LoadProgress) => void = () => {},
): Promise<LoadedPolicy> {
  onProgress({ stage: 'tokenizer', message: 'Loading the tokenizer' });
  const tokenizer = await loadTokenizer(source);
  onProgress({ stage: 'model', message: 'Loading the weights', loadedBytes: 0, totalBytes: null });
  const mode = resolveRun(config).training;
  const model = await CausalLM.load(source, {
    training: mode,
    onProgress: (loadedBytes, totalBytes) =>
      onProgress({ stage: 'model', message: 'Loading the weights', loadedBytes, totalBytes }),
  });
  // LoRA: the reference is the same weights with adapters off. Full mode: a frozen second copy
  // (only sensible for tiny models, which is what full mode is for).
  let referenceModel: CausalLM | null = null;
  if (mode.kind === 'full' && config.klCoef > 0) referenceModel = await CausalLM.load(source);
  const reference: Reference =
    mode.kind === 'lora'
      ? { kind: 'adapters-off' }
      : referenceModel
        ? { kind: 'model', model: referenceModel }
        : null;
  const card = (await source.has('README.md'))
    ? new TextDecoder().decode(await source.readFile('README.md'))
    : null;
  const size = (variables: Iterable<{ size: number }>) =>
    [...variables].reduce((sum, v) => sum + v.size, 0);
  const base =
    size(baseVariables(model.params).values()) +
    halfWeights(model.params).reduce((sum, weight) => sum + weight.size, 0);
  const trainable = size(model.trainableVariables().values());
  const info: ModelInfo = {
    name: source.name,
    source: origin,
    architecture: model.config.family,
    // the model's own weights, the number config.json gives (memory_estimate.ts countParameters):
    // the header and the memory line say one figure; LoRA's factors are `trainableParameters`
    parameters: base,
    trainableParameters: trainable,
    card,
    warnings: [...tokenizer.warnings],
  };
  return {
    model,
    tokenizer,
    reference,
    info,
    dispose() {
      model.dispose();
      referenceModel?.dispose();
    },
  };
}

/**
 * A Trainer for a loaded policy, a sandbox and a config, resolved against the policy's model (a
 * model whose KV cache at the step's size would pass the budget runs its episodes a few at a time,
 * as the memory estimate counts); with a rollout source (a run with `async` on), the overlapped
 * trainer, which asks for no episodes past the config's last step. Nothing is changed after.
 */
export function createTrainer(
  policy: LoadedPolicy,
  executor: CodeExecutor,
  config: RunConfig,
  rollouts?: RolloutSource,
): Trainer {
  const deps = {
    model: policy.model,
    tokenizer: policy.tokenizer,
    executor,
    reference: policy.reference,
  };
  const settings = resolveRun(config, policy.model.config).trainer;
  return rollouts ? new OverlappedTrainer(deps, settings, rollouts) : new Trainer(deps, settings);
}
