// The model card and picker: the demo model, hub presets, any hub id (with a configurable hub
// address), or a folder picked or dropped from disk. Loading goes through the controller, which
// checks the memory estimate first and refuses models too large for this device. Before loading,
// the card tells what the model picked costs under the run's settings (edits included): its
// memory and its seconds per step on this device (model_fit.ts), from config.json alone.
import { formatParameters } from '../../model_files/memory_estimate.ts';
import { h, replace, setText, show } from './dom.ts';
import { errorMessage } from '../state/errors.ts';
import { costText, measuredStepText } from '../state/model_fit.ts';
import { DEFAULT_HUB_URL, HUB_PRESETS, isHubId, modelLabel } from '../state/models.ts';
import type { RunController } from '../state/run_controller.ts';

/** Where the page keeps small settings (localStorage in the page). */
export interface Settings {
  get(key: string): string | null;
  set(key: string, value: string): void;
}

const OTHER = '__hub__';
const FOLDER = '__folder__';

/** Files of a dropped folder (one level deep is what a model repo needs), or the dropped files. */
async function droppedFiles(
  transfer: DataTransfer,
): Promise<{ name: string; files: File[] } | null> {
  const entries = [...transfer.items]
    .map((item) => item.webkitGetAsEntry?.())
    .filter((e): e is FileSystemEntry => Boolean(e));
  const folder =
    entries.length === 1 && entries[0]!.isDirectory
      ? (entries[0] as FileSystemDirectoryEntry)
      : null;
  if (!folder) {
    const files = [...transfer.files];
    return files.length > 0 ? { name: 'dropped files', files } : null;
  }
  const reader = folder.createReader();
  const children: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) =>
      reader.readEntries(resolve, reject),
    );
    if (batch.length === 0) break;
    children.push(...batch);
  }
  const files = await Promise.all(
    children
      .filter((e) => e.isFile)
      .map(
        (e) =>
          new Promise<File>((resolve, reject) => (e as FileSystemFileEntry).file(resolve, reject)),
      ),
  );
  return { name: folder.name, files };
}

/** The model card with its picker. */
export function modelPanel(controller: RunController, settings: Settings): HTMLElement {
  const name = h('div', { class: 'name', 'data-testid': 'model-card-name' }, '…');
  const facts = h('div', { class: 'facts' });
  const notes = h('div');
  const select = h(
    'select',
    { 'data-testid': 'model-select' },
    h('option', { value: 'demo' }, modelLabel('demo')),
    h(
      'optgroup',
      { label: 'Hugging Face hub' },
      ...HUB_PRESETS.map((p) => h('option', { value: p.repo }, `${p.label} (${p.note})`)),
    ),
    h('option', { value: OTHER }, 'Other hub model…'),
    h('option', { value: FOLDER }, 'Folder from disk…'),
  );
  const hubId = h('input', {
    type: 'text',
    placeholder: 'owner/name, e.g. HuggingFaceTB/SmolLM2-135M-Instruct',
    'data-testid': 'hub-id',
  });
  const hubUrl = h('input', {
    type: 'text',
    'data-testid': 'hub-url',
    placeholder: DEFAULT_HUB_URL,
  });
  hubUrl.value = settings.get('hubBaseUrl') ?? DEFAULT_HUB_URL;
  controller.context = { ...controller.context, hubBaseUrl: hubUrl.value || DEFAULT_HUB_URL };
  hubUrl.addEventListener('change', () => {
    const value = hubUrl.value.trim() || DEFAULT_HUB_URL;
    settings.set('hubBaseUrl', value);
    controller.context = { ...controller.context, hubBaseUrl: value };
    refreshCost();
  });
  const folderInput = h('input', {
    type: 'file',
    webkitdirectory: true,
    multiple: true,
    'data-testid': 'model-folder',
  });
  const drop = h(
    'div',
    { class: 'drop', 'data-testid': 'model-drop' },
    'Drop a model folder here (config.json, tokenizer.json, *.safetensors)',
  );
  const folderRow = h('div', null, folderInput, drop);
  const hubRow = h('div', null, hubId);
  const load = h('button', { class: 'primary', 'data-testid': 'load-model' }, 'Load model');
  const cost = h('div', { class: 'cost', 'data-testid': 'model-cost' });
  cost.hidden = true;

  const chosenModel = (): string | null => {
    if (select.value === OTHER) return isHubId(hubId.value.trim()) ? hubId.value.trim() : null;
    if (select.value === FOLDER) return controller.context.picked?.name ?? null;
    return select.value;
  };
  const loadModel = (model: string) =>
    void controller.applyConfig({ ...structuredClone(controller.config), model });
  const usePicked = (picked: { name: string; files: File[] } | null) => {
    if (!picked || picked.files.length === 0) return;
    // Picked, not loaded: the card shows its cost first, and Load model loads it.
    controller.context = { ...controller.context, picked };
    setText(drop, `${picked.name}: ${picked.files.length} files. Press Load model to load it.`);
    syncPicker();
  };
  folderInput.addEventListener('change', () => {
    const files = [...(folderInput.files ?? [])];
    const first = (
      files[0] as (File & { webkitRelativePath?: string }) | undefined
    )?.webkitRelativePath?.split('/')[0];
    usePicked({ name: first || 'picked folder', files });
  });
  drop.addEventListener('dragover', (event) => {
    event.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (event) => {
    event.preventDefault();
    drop.classList.remove('over');
    if (event.dataTransfer)
      droppedFiles(event.dataTransfer).then(usePicked, (error) =>
        controller.showError(error, 'reading the dropped folder'),
      );
  });
  load.addEventListener('click', () => {
    const model = chosenModel();
    if (model) loadModel(model);
    else if (select.value === FOLDER)
      controller.showError(
        new Error('no folder is picked. Fix: pick or drop a model folder first.'),
        'choosing a model',
      );
    else
      controller.showError(
        new Error(
          'that is not a hub model id. Fix: write it as owner/name, e.g. Qwen/Qwen2.5-0.5B-Instruct.',
        ),
        'choosing a model',
      );
  });

  /** The picked model's cost under the run's settings; the newest request wins. */
  let costRequest = 0;
  const refreshCost = () => {
    const request = ++costRequest;
    const model = chosenModel();
    const settle = (...children: (HTMLElement | null)[]) => {
      if (request !== costRequest) return;
      replace(cost, ...children);
      show(cost, children.some(Boolean));
    };
    if (!model) return settle();
    controller.costOf(model).then(
      (result) => {
        if (!result) return settle();
        const text = costText(result);
        const measured = measuredStepText(controller.metrics);
        settle(
          h(
            'div',
            { class: 'facts' },
            model === controller.config.model
              ? 'At these settings (an estimate):'
              : `If you load ${modelLabel(model)}, at these settings (an estimate):`,
          ),
          h('div', { class: 'cost-step', 'data-testid': 'model-cost-step' }, text.step),
          text.run ? h('div', { class: 'facts', 'data-testid': 'model-cost-run' }, text.run) : null,
          // a loaded model's memory warning is already a notice above
          text.memory === controller.modelWarning
            ? null
            : h(
                'div',
                {
                  class: `facts cost-memory ${result.memory.fit}`,
                  'data-testid': 'model-cost-memory',
                },
                // the shared message starts with the model's name, lower-case for the demo
                text.memory.charAt(0).toUpperCase() + text.memory.slice(1),
              ),
          text.assumes
            ? h('div', { class: 'facts', 'data-testid': 'model-cost-assumes' }, text.assumes)
            : null,
          text.detail ? h('div', { class: 'facts' }, text.detail) : null,
          measured && model === controller.config.model
            ? h('div', { class: 'facts', 'data-testid': 'model-cost-measured' }, measured)
            : null,
        );
      },
      (error) => settle(h('div', { class: 'facts' }, `No estimate: ${errorMessage(error)}`)),
    );
  };
  let typing: ReturnType<typeof setTimeout> | undefined;
  hubId.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(refreshCost, 400);
  });

  const syncPicker = () => {
    show(hubRow, select.value === OTHER);
    show(folderRow, select.value === FOLDER);
    show(load, select.value !== FOLDER || Boolean(controller.context.picked));
    refreshCost();
  };
  select.addEventListener('change', syncPicker);

  const render = () => {
    const info = controller.model;
    setText(
      name,
      info?.name ??
        (controller.state === 'starting' || controller.state === 'busy'
          ? 'Loading…'
          : 'No model loaded'),
    );
    setText(
      facts,
      info
        ? `${formatParameters(info.parameters)} parameters · ${formatParameters(info.trainableParameters)} trainable · ${info.architecture} · from ${info.source}`
        : '',
    );
    replace(
      notes,
      info && info.source === 'demo'
        ? h(
            'p',
            { class: 'facts' },
            'A tiny model made by this project: trained on synthetic Python task transcripts so it learns visibly in minutes, offline. It is not a general assistant.',
          )
        : null,
      controller.modelWarning
        ? h('div', { class: 'notice warn' }, h('div', { class: 'body' }, controller.modelWarning))
        : null,
      ...(info?.warnings ?? []).map((warning) =>
        h('div', { class: 'notice warn' }, h('div', { class: 'body' }, warning)),
      ),
      info?.card
        ? h('details', null, h('summary', null, 'Model card'), h('pre', null, info.card))
        : null,
    );
    load.disabled = !controller.controls().configure;
  };
  /**
   * Shows the config's model in the picker (only when the config or model changes: never under the
   * user's hand).
   */
  const syncToConfig = () => {
    const model = controller.config.model;
    if (model === 'demo' || HUB_PRESETS.some((p) => p.repo === model)) select.value = model;
    else if (isHubId(model)) {
      select.value = OTHER;
      hubId.value = model;
    } else select.value = FOLDER;
    syncPicker();
  };
  controller.subscribe((change) => {
    if (change === 'model' || change === 'config' || change === 'state') render();
    if (change === 'config') syncToConfig();
    if (change === 'draft' || change === 'backend' || change === 'model' || change === 'reset')
      refreshCost();
    // the measured seconds join the estimate after the first steps, then every fifth
    if (change === 'step' && [1, 2, 3].includes(controller.metrics.length % 5)) refreshCost();
  });
  render();
  syncToConfig();
  return h(
    'section',
    { class: 'card model-card', 'data-control': 'model' },
    h('h2', null, 'Model'),
    name,
    facts,
    notes,
    h('div', { class: 'field wide' }, select),
    hubRow,
    folderRow,
    cost,
    h(
      'details',
      null,
      h('summary', null, 'Hub address'),
      h(
        'p',
        { class: 'facts' },
        "Any server with the hub's /{repo}/resolve/{revision}/{file} layout (a mirror, a local copy).",
      ),
      hubUrl,
    ),
    h('div', { class: 'form-actions' }, load),
  );
}
