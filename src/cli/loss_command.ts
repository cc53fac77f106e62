// `loss --model DIR --batch FILE`: the update's loss and global gradient norm on a given batch in
// full-parameter mode, without stepping (BatchFile below is the file's format). Checks outside
// the test suite compare it with their own implementations, so the format is exact.
import { readFile } from 'node:fs/promises';
import { AGGREGATIONS, type Aggregation } from '../rl/loss.ts';
import { globalNorm } from '../model/adamw.ts';
import { batchGradients, scoreSequences, type PackedSequence } from '../rl/update.ts';
import { CausalLM } from '../model/model.ts';
import { directorySource } from '../model_files/node_source.ts';
import { requireOption, type CliArgs } from './args.ts';
import { useNodeBackend } from './backend.ts';

interface BatchFile {
  sequences: {
    ids: number[];
    actionMask: number[];
    advantage: number;
    oldLogprobs: number[] | null;
  }[];
  clipEps: number;
  clipEpsHigh?: number;
  klCoef: number;
  ref: string | null;
  aggregation: Aggregation;
  temperature?: number;
  maxTokens?: number;
}

/** Validates the batch file, with messages that say which field is wrong. */
export function parseBatchFile(json: unknown): BatchFile {
  const fail = (message: string): never => {
    throw new Error(`batch file: ${message}`);
  };
  if (!json || typeof json !== 'object') fail('must be a JSON object');
  const batch = json as Partial<BatchFile>;
  if (!Array.isArray(batch.sequences) || batch.sequences.length === 0)
    fail('"sequences" must be a non-empty array');
  batch.sequences!.forEach((s, i) => {
    if (!Array.isArray(s.ids) || s.ids.length < 2)
      fail(`sequences[${i}].ids must hold at least 2 token ids`);
    if (!Array.isArray(s.actionMask) || s.actionMask.length !== s.ids.length)
      fail(`sequences[${i}].actionMask must have one 0/1 per id`);
    if (s.actionMask.some((m) => m !== 0 && m !== 1))
      fail(`sequences[${i}].actionMask must hold only 0 and 1`);
    if (s.actionMask[0] === 1)
      fail(`sequences[${i}].actionMask[0] must be 0 (nothing predicts the first token)`);
    if (typeof s.advantage !== 'number' || !Number.isFinite(s.advantage))
      fail(`sequences[${i}].advantage must be a finite number`);
    if (
      s.oldLogprobs != null &&
      (!Array.isArray(s.oldLogprobs) || s.oldLogprobs.length !== s.ids.length)
    ) {
      fail(`sequences[${i}].oldLogprobs must be null or have one number per id`);
    }
  });
  for (const key of ['clipEps', 'klCoef'] as const)
    if (typeof batch[key] !== 'number') fail(`"${key}" must be a number`);
  if (!AGGREGATIONS.includes(batch.aggregation as Aggregation))
    fail(`"aggregation" must be one of ${AGGREGATIONS.join(', ')}`);
  if (batch.ref !== null && typeof batch.ref !== 'string')
    fail('"ref" must be a model folder or null');
  return batch as BatchFile;
}

/** Prints {"loss": x, "gradNorm": y}. */
export async function lossCommand(args: CliArgs): Promise<void> {
  await useNodeBackend(args);
  const batchPath = requireOption(args, 'batch');
  let json: unknown;
  try {
    json = JSON.parse(await readFile(batchPath, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read batch file ${batchPath}: ${(error as Error).message}`);
  }
  const batch = parseBatchFile(json);
  const model = await CausalLM.load(directorySource(requireOption(args, 'model')), {
    training: { kind: 'full' },
  });
  const temperature = batch.temperature ?? 1;
  const sequences: PackedSequence[] = batch.sequences.map((s) => ({
    ids: s.ids,
    actionMask: s.actionMask,
    advantage: s.advantage,
    oldLogprobs: s.oldLogprobs ?? null,
  }));
  let ref: number[][] | null = null;
  if (batch.ref !== null) {
    const refModel = await CausalLM.load(directorySource(batch.ref));
    ref = await scoreSequences(
      refModel,
      sequences.map((s) => s.ids),
      temperature,
      sequences.length,
    );
    refModel.dispose();
  }
  const result = await batchGradients(model, sequences, ref, {
    temperature,
    clipEps: batch.clipEps,
    clipEpsHigh: batch.clipEpsHigh ?? batch.clipEps,
    klCoef: batch.klCoef,
    aggregation: batch.aggregation,
    maxTokens: batch.maxTokens ?? Math.max(...sequences.map((s) => s.ids.length)),
    ppoEpochs: 1,
    microBatchSize: sequences.length,
    gradClip: 0,
    learningRate: 0,
  });
  const gradNorm = await globalNorm(result.grads);
  process.stdout.write(`${JSON.stringify({ loss: result.loss, gradNorm })}\n`);
}
