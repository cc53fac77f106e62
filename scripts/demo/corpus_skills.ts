// The skill part of the demo corpus: transcripts of skill instances (skill.ts), cycling through the
// skills in a shuffled order each round, in the same agent-loop format as the rest (wrong first
// attempts, answers without code). An instance that shares a run of words or code with held-out
// material (held_out.ts) is drawn again, so the part never holds any.
import type { CodeExecutor } from '../../src/env/types.ts';
import { Rng } from '../../src/model/rng.ts';
import { heldOutFindings } from './held_out.ts';
import type { Instance, NameShares, Template } from './template.ts';
import { buildTranscript, type Transcript, type TranscriptOptions } from './transcripts.ts';

/** Settings of the skill part. */
export interface SkillCorpusOptions extends TranscriptOptions {
  size: number;
  seed: number;
  /** Shares of made-up function and parameter names (default: skill.ts's DEFAULT_NAME_SHARES). */
  names?: NameShares;
}

/** The skill part, and how many instances were drawn again for touching held-out material. */
export interface SkillCorpus {
  transcripts: Transcript[];
  redrawn: number;
}

/** Every text of an instance the model would see. */
function instanceText(instance: Instance): string {
  return [instance.prompt, instance.solution, ...instance.mistakes.map((m) => m.code)].join('\n');
}

/** The most draws for one transcript: a skill that always touches held-out material is a bug. */
const MAX_DRAWS = 50;

/** Generates `size` skill transcripts. */
export async function generateSkillCorpus(
  skills: readonly Template[],
  executor: CodeExecutor,
  options: SkillCorpusOptions,
): Promise<SkillCorpus> {
  const rng = new Rng(options.seed);
  const transcripts: Transcript[] = [];
  let redrawn = 0;
  while (transcripts.length < options.size) {
    const order = skills.map((t) => ({ t, key: rng.uniform() })).sort((a, b) => a.key - b.key);
    for (const { t } of order) {
      if (transcripts.length >= options.size) break;
      let instance = t.make(rng, options.names);
      for (let draws = 1; heldOutFindings(instanceText(instance)).length > 0; draws++) {
        if (draws >= MAX_DRAWS)
          throw new Error(`skill ${t.taskId} keeps touching held-out material`);
        redrawn++;
        instance = t.make(rng, options.names);
      }
      transcripts.push(await buildTranscript(t.taskId, instance, executor, rng, options));
    }
  }
  return { transcripts, redrawn };
}
