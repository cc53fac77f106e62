// The projections a LoRA adapter can attach to, in the Hugging Face / PEFT module names: the run
// config's `loraTargets` choices and the adapters' own check. A file of its own, without tfjs,
// because the page's main thread reads it through the run config.

/** Projections an adapter can attach to, in the Hugging Face / PEFT module names. */
export const LORA_TARGETS = [
  'q_proj',
  'k_proj',
  'v_proj',
  'o_proj',
  'gate_proj',
  'up_proj',
  'down_proj',
] as const;

/** One of the adaptable projections. */
export type LoraTarget = (typeof LORA_TARGETS)[number];
