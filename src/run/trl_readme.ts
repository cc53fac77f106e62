// The exported project's README.md: how to run it on one GPU, on N GPUs and on several nodes, and
// what differs from the tab. The multi-GPU recipe is TRL's own (docs/source/vllm_integration.md
// at the pin): `accelerate launch` for the trainer processes, `trl vllm-serve` for a separate
// generation server.
import type { RunConfig } from './config.ts';
import {
  baseModelName,
  batchPlan,
  stepCompletions,
  stepPrompts,
  TRL_PINS,
  TRL_VERSION,
} from './trl_mapping.ts';

/**
 * The run's settings TRL's trainer has no counterpart for, each as a line of "What differs": the
 * export says so rather than training something else in silence.
 */
function notMapped(config: RunConfig): string {
  const lines: string[] = [];
  if (config.async)
    lines.push(
      "`async`: the tab samples the next step's episodes while it updates (one step stale); TRL runs rollout and update in turn.",
    );
  if (config.skipZeroStdGroups)
    lines.push(
      "`skipZeroStdGroups`: the tab leaves a uniform group out of the update; TRL gives it advantage 0 but keeps it in the KL term and in the loss's averages.",
    );
  if (config.taskSampling === 'learnable')
    lines.push(
      "`taskSampling: 'learnable'`: TRL has no curriculum; its sampler shuffles the tasks every epoch.",
    );
  if (config.evalEvery > 0)
    lines.push('`evalEvery`: the held-out pass@1 is not run during training.');
  if (config.finetune === 'full')
    lines.push(
      "`finetune: 'full'`: TRL's Trainer leaves biases and norm weights out of weight decay; the tab decays every parameter.",
    );
  return lines.map((line) => `- Not mapped: ${line}\n`).join('');
}

/** Process counts from 1 to 8 that can share one step's batch, with their passes. */
function worldTable(completions: number, micro: number): string {
  const rows: string[] = [];
  for (let world = 1; world <= 8; world++) {
    try {
      const plan = batchPlan(completions, micro, world);
      rows.push(`| ${world} | ${completions / world} | ${plan.perDevice} | ${plan.accumulation} |`);
    } catch {
      rows.push(`| ${world} | refused: ${completions} is not a multiple of ${world} | | |`);
    }
  }
  return rows.join('\n');
}

export function trlReadme(config: RunConfig, runLink: string | null, taskCount: number): string {
  const model = baseModelName(config.model);
  const modelArg = model ? '' : ' --model Qwen/Qwen2.5-0.5B-Instruct';
  const completions = stepCompletions(config, taskCount);
  const prompts = stepPrompts(config, taskCount);
  const served = model ?? 'Qwen/Qwen2.5-0.5B-Instruct';
  // an example process count this run's batch can be shared by (at most 4, beside a 1-GPU server)
  const example = [4, 3, 2, 1].find((n) => completions % n === 0)!;
  const trainerGpus = Array.from({ length: example }, (_, i) => i + 1).join(',');
  const pins = Object.entries(TRL_PINS)
    .map(([name, version]) => `${name} ${version}`)
    .join(', ');
  return `# TRL export of a run

${runLink ? `Exported from the run link (the page's address followed by this):\n\n    ${runLink}\n` : 'Exported from a run config.'}

${taskCount} tasks (set \`${config.tasks}\`${config.customTasks.length > 0 ? ` plus ${config.customTasks.length} custom` : ''}), model ${model ? `\`${model}\`` : "the tab's embedded demo model (no hub id: pass `--model`)"}, ${config.finetune === 'lora' ? `LoRA r=${config.loraRank}, alpha=${config.loraAlpha}` : 'full fine-tuning'}.
Each step: ${prompts} prompts x ${config.groupSize} samples = ${completions} episodes, then ${config.ppoEpochs} optimizer step${config.ppoEpochs === 1 ? '' : 's'} over them (one per PPO epoch); ${config.steps} steps.

## Run it on one GPU

    pip install -r requirements.txt    # ${pins}
    python rewards.py --self-test      # any machine, Python 3.10+, no GPU
    python train.py --dry-run          # no TRL needed: tasks, config mapping, one scripted episode as ids
    python train.py${modelArg}${model ? '                ' : ''}  # TRL ${TRL_VERSION}, vLLM colocated on the training GPU
    python train.py${modelArg} --adapter DIR  # start from a PEFT adapter the tab exported

## On N GPUs of one machine

Every GPU runs a trainer process with its own colocated vLLM:

    accelerate launch --num_processes N train.py${modelArg}

train.py reads the process count (\`WORLD_SIZE\`) at start and splits each step's ${completions}
episodes evenly: every process plays ${completions}/N of them, in passes of at most
${config.microBatchSize} sequences (microBatchSize), all accumulated into one optimizer step, so the
experiment is the same for any N. A count that does not divide ${completions} is refused with the
counts that do:

| processes | episodes each | sequences per pass | passes per optimizer step |
|---|---|---|---|
${worldTable(completions, config.microBatchSize)}

## With a vLLM server, on one or several nodes

Generation can run on GPUs of its own, served by TRL's \`trl vllm-serve\`; the trainer processes send
every turn there and push the new weights after each optimizer step. Keep the server's GPUs out of
the trainers' (\`CUDA_VISIBLE_DEVICES\`). The first trainer process must reach the server on its HTTP
port (8000) and on the weight-sync port (51216, \`vllm_group_port\`).

    # node A (or GPU 0 of one machine): the generation server; a model too big for one GPU takes
    # --tensor-parallel-size K on K GPUs (not --data-parallel-size: vLLM ${TRL_PINS.vllm} refuses it for dense models)
    CUDA_VISIBLE_DEVICES=0 trl vllm-serve --model ${served}

    # one machine: the trainers on other GPUs (${example} divides this run's ${completions} episodes a step)
    CUDA_VISIBLE_DEVICES=${trainerGpus} accelerate launch --num_processes ${example} train.py${modelArg} --vllm-server http://localhost:8000

    # several machines: run this on each of M nodes (rank 0..M-1), N = all trainer GPUs together
    accelerate launch --num_machines M --machine_rank RANK --main_process_ip NODE0_IP --main_process_port 29500 \\
        --num_processes N train.py${modelArg} --vllm-server http://NODE_A_IP:8000

The server must serve the same model as train.py (\`--model\`). The process counts that can share a
step are the same as above; with a server every process joins every turn's request, so episodes
finish in the same number of rounds on every node.

## Files

- \`tasks.jsonl\`: the tasks (prompt, expected output, hidden tests, and the tests split for the judge).
- \`protocol.py\`: every string and limit the tab uses (system prompt, format errors, TIMEOUT, turns, tokens, output tail, reward weights), written from the tab's source.
- \`environment.py\`: the agent loop (fenced Python runs, FINAL ANSWER:, ${config.tools.includes('search') ? 'SEARCH: and ```search calls, ' : ''}the observation format).
- \`rollout.py\`: the episodes as token ids for TRL's \`rollout_func\`: the sampled ids kept as sampled, each observation's ids appended with \`env_mask\` 0.
${config.tools.includes('search') ? "- `docs_search.py`, `docs.json`: the search tool's offline docs index (the tab's entries and its own index data) and a port of its ranking; `python docs_search.py` reads one JSON query a line.\n" : ''}- \`rewards.py\`: the reward parts and weights, and the judge for hidden tests (its child process's code is \`judge_child.py\`).
- \`train.py\`: \`GRPO_ARGS\` and \`LORA_ARGS\`, GRPOConfig and LoraConfig field by field (comments say why each value).

## What differs from the tab

- Programs run in a CPython subprocess (resource limits, a deadline), not in Pyodide: the same Python
  language, but the interpreter's version and the traceback text may differ.
- The tests judge is a CPython port of the tab's: expected values never enter the judged process and
  are compared here as plain data; tampering it detects scores 0. The tab's judge (Pyodide, with its
  own lockdown) checks more kinds of tampering.
- Sampling is vLLM's: the same seed does not give the tab's samples. TRL trains in bf16 with
  gradient checkpointing; vLLM's log-probs differ a little from the trainer's, which TRL corrects
  token by token (importance sampling, clamped at 3). Advantages divide by std + 1e-4 where the
  tab zeroes a group whose std is below 1e-8. Each epoch TRL shuffles the tasks and leaves out the
  last (tasks mod prompts per step) of the order, where the tab carries them into the next step.
${notMapped(config)}- A non-final turn that ends on another of the model's end tokens (Qwen2.5's \`<|endoftext|>\`
  rather than \`<|im_end|>\`) breaks the chat's prefix and the episode is left out, as in the tab.
- A chat template that rewrites earlier turns (Qwen3's \`<think>\` handling) is refused at start;
  with \`--allow-prefix-breaks\` such episodes are left out of the update, as the tab leaves them.
- **Not run by the exporter:** \`python train.py\` with TRL. It is written against the pinned TRL
  ${TRL_VERSION} source, field by field, but the machines that test the exporter have no GPU and no
  network for \`pip install\`, so the training path has never run there. What is tested: the
  arguments against the rules recorded from TRL's source, \`python rewards.py --self-test\`,
  \`python train.py --dry-run\` (everything but the trainer), the token-id rollout with test
  tokenizers and, in the tab's test suite, that rewards.py${config.tools.includes('search') ? ', the search tool' : ''} and the parsers give the
  tab's results.
`;
}
