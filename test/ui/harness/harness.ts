// TEST HARNESS: the real page (startApp, every panel, IndexedDB checkpoints) driven by the fake
// trainer instead of the worker, for browser tests of the UI alone. Built by
// test/e2e/page_ui.test.ts into a temporary folder; never part of dist/. Query options: delay=MS
// (per phase), tokens=1 (per-token texts), fail=METHOD:MESSAGE, every=N (checkpoint every N steps),
// uniform=1 (every sample of step 1 fails: every group uniform, every advantage 0).
import { indexedDbCheckpointStore } from '../../../src/service/checkpoint_store.ts';
import { indexedDbRunHistory } from '../../../src/service/run_history.ts';
import { startApp } from '../../../src/ui/panels/app.ts';
import { checkModelFits, estimateModelCost } from '../../../src/ui/state/model_fit.ts';
import '../../../src/ui/styles.css';
import { FakeTrainer, type FakeTrainerOptions } from '../fake_trainer.ts';

const query = new URLSearchParams(location.search);
const options: FakeTrainerOptions = {
  phaseDelayMs: Number(query.get('delay') ?? 0),
  tokenTexts: query.get('tokens') === '1',
  loadBytes: 40_000_000,
  firstStepFails: query.get('uniform') === '1',
};
const fail = query.get('fail');
if (fail) {
  const [method, ...message] = fail.split(':');
  options.failOn = {
    [method as keyof FakeTrainer]: message.join(':'),
  } as FakeTrainerOptions['failOn'];
}
const trainer = new FakeTrainer(options);
const downloads: { name: string; size: number; text: string | null }[] = [];
const stored = new Map<string, string>();

startApp(document.getElementById('app')!, trainer, {
  proxy: (callback) => callback,
  checkpoints: await indexedDbCheckpointStore(indexedDB, { dbName: 'harness-checkpoints' }),
  history: await indexedDbRunHistory(indexedDB, { dbName: 'harness-runs' }),
  settings: {
    get: (key) => stored.get(key) ?? null,
    set: (key, value) => void stored.set(key, value),
  },
  url: location.href,
  setHash: (fragment) => history.replaceState(null, '', fragment),
  download: (name, data) =>
    downloads.push({
      name,
      size: typeof data === 'string' ? data.length : data.byteLength,
      text: typeof data === 'string' ? data : null,
    }),
  checkpointEvery: Number(query.get('every') ?? 5),
  // The product's real memory check (config.json over fetch), on an assumed WASM device.
  checkModel: async (choice, config) => {
    const verdict = await checkModelFits(choice, config, {
      device: { backend: 'wasm', deviceMemoryGiB: Number(query.get('ram') ?? 0) || null },
    });
    return verdict?.fit === 'tight' ? verdict.message : null;
  },
  // The product's real estimate, at the fake trainer's fixed speed.
  estimateCost: (choice, config, _backend, speed) =>
    estimateModelCost(
      choice,
      config,
      { device: { backend: 'wasm', deviceMemoryGiB: Number(query.get('ram') ?? 0) || null } },
      speed,
    ),
}).then((controller) => {
  Object.assign(window, { playground: controller, fakeTrainer: trainer, downloads });
});
