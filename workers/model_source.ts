// Where a model choice's files come from in the browser (the served demo folder, the hub with the
// Cache API, picked files): shared by the trainer worker and the rollout worker, so both load the
// same weights.
import { browserCache } from '../src/model_files/browser_cache.ts';
import { DEMO_FILES } from '../src/model_files/demo_files.ts';
import { hubSource } from '../src/model_files/hub_source.ts';
import { localFilesSource } from '../src/model_files/local_files_source.ts';
import type { ModelSource } from '../src/model_files/source.ts';
import { urlSource } from '../src/model_files/url_source.ts';
import type { ModelChoice, ModelInfo } from '../src/service/trainer_api.ts';

/** The page's base URL (vite's BASE_URL against this worker's origin). */
export const base = new URL(import.meta.env.BASE_URL, self.location.origin).href;

/** The files of a model choice, and what the page shows as their origin. */
export function browserSourceFor(choice: ModelChoice): {
  source: ModelSource;
  origin: ModelInfo['source'];
} {
  switch (choice.kind) {
    case 'demo':
      return {
        source: urlSource(`${base}models/demo/`, 'demo', undefined, DEMO_FILES),
        origin: 'demo',
      };
    case 'hub':
      return {
        source: hubSource({
          repo: choice.repo,
          revision: choice.revision ?? 'main',
          baseUrl: choice.baseUrl ?? 'https://huggingface.co',
          cache: browserCache(),
        }),
        origin: 'hub',
      };
    case 'files':
      return { source: localFilesSource(choice.files), origin: 'files' };
  }
}
