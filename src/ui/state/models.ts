// Model choices the page offers (docs/architecture.md §9.6: one registry for the picker and the
// checks): the embedded demo model, hub presets, any hub id, or a folder from disk. The run config
// names the model as text (`model`: "demo", a hub id, or a folder name); this turns that text into
// the worker's ModelChoice. Pure: no DOM.
import type { ModelChoice } from '../../service/trainer_api.ts';

/** A hub model the page lists. */
export interface ModelPreset {
  repo: string;
  label: string;
  note: string;
  /**
   * The shape preset with this model's config.json (src/model_files/shape_presets.ts): the card's
   * estimate needs no request, so it shows offline and before anything is fetched.
   */
  shape: string;
}

/** The hub presets (docs/architecture.md §4). */
export const HUB_PRESETS: readonly ModelPreset[] = [
  {
    repo: 'HuggingFaceTB/SmolLM2-135M-Instruct',
    label: 'SmolLM2 135M Instruct',
    note: '~270 MB download',
    shape: 'smollm2-135m',
  },
  {
    repo: 'HuggingFaceTB/SmolLM2-360M-Instruct',
    label: 'SmolLM2 360M Instruct',
    note: '~720 MB download',
    shape: 'smollm2-360m',
  },
  {
    repo: 'Qwen/Qwen2.5-0.5B-Instruct',
    label: 'Qwen2.5 0.5B Instruct',
    note: "the reference design's model, ~1 GB",
    shape: 'qwen2.5-0.5b',
  },
  {
    repo: 'Qwen/Qwen2.5-Coder-0.5B-Instruct',
    label: 'Qwen2.5 Coder 0.5B Instruct',
    note: '~1 GB',
    shape: 'qwen2.5-0.5b', // the same shapes as Qwen2.5-0.5B-Instruct
  },
];

/** The public hub; other base URLs (a mirror, the tests' mock hub) are a page setting. */
export const DEFAULT_HUB_URL = 'https://huggingface.co';

const HUB_ID = /^[A-Za-z0-9][\w.-]*\/[\w.-]+$/;

/** Whether `model` (a config value) names a hub repo ("owner/name"). */
export function isHubId(model: string): boolean {
  return HUB_ID.test(model);
}

/** What the page needs beside the config to resolve its model. */
export interface ModelContext {
  hubBaseUrl: string;
  /** Files the user picked or dropped, with the folder name they go by. */
  picked: { name: string; files: File[] } | null;
}

/**
 * The worker's ModelChoice for a config's `model`; throws with a fix when the model is a local
 * folder that has not been picked in this tab (a shared link cannot carry someone's files).
 */
export function modelChoice(model: string, context: ModelContext): ModelChoice {
  if (model === 'demo') return { kind: 'demo' };
  if (isHubId(model)) {
    const baseUrl = context.hubBaseUrl.replace(/\/+$/, '');
    return baseUrl && baseUrl !== DEFAULT_HUB_URL
      ? { kind: 'hub', repo: model, baseUrl }
      : { kind: 'hub', repo: model };
  }
  if (context.picked && context.picked.name === model)
    return { kind: 'files', files: context.picked.files };
  throw new Error(
    `this run uses the local model folder ${JSON.stringify(model)}, which is not loaded in this tab. Fix: pick or drop that folder under Model, or choose the demo model.`,
  );
}

/** A short name for the model picker and status line. */
export function modelLabel(model: string): string {
  if (model === 'demo') return 'Demo model (built in)';
  return HUB_PRESETS.find((preset) => preset.repo === model)?.label ?? model;
}
