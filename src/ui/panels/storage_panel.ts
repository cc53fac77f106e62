// Nothing lost, and shared: the error area and resume offer (top of the page), and the "Save &
// share" card: checkpoint status, exports (PEFT adapter .zip, trajectories JSONL, metrics CSV),
// adapter import, and the run link's options (autostart, lesson mode).
import { metricsCsv, trajectoriesJsonl, unzipStored, zipFiles } from '../../run/exports.ts';
import { exportTrlProject } from '../../run/trl_export.ts';
import { HIDE_NAMES } from '../../run/link_options.ts';
import { h, replace, setText } from './dom.ts';
import { sentence } from '../state/errors.ts';
import { formatClock } from '../state/format.ts';
import type { RunController } from '../state/run_controller.ts';

/** Saves bytes or text as a file the user downloads. */
export type Download = (name: string, data: Uint8Array | string, type: string) => void;

/** The error box and the resume offer. */
export function noticesPanel(controller: RunController): HTMLElement {
  const error = h('div', { class: 'notice error', role: 'alert' });
  const errorText = h('div', { class: 'body', 'data-testid': 'error' });
  const dismissAll = h(
    'button',
    { class: 'small', 'data-testid': 'dismiss-error', onclick: () => controller.dismissError() },
    'Dismiss',
  );
  error.append(errorText, dismissAll);
  const resume = h('div', { class: 'notice info', 'data-testid': 'resume-offer' });
  const render = () => {
    const shown = controller.errors;
    error.hidden = shown.length === 0;
    errorText.hidden = shown.length === 0;
    // several errors: each has its own Dismiss, and the area's button dismisses them all
    setText(dismissAll, shown.length > 1 ? 'Dismiss all' : 'Dismiss');
    replace(
      errorText,
      ...shown.map((e) =>
        h(
          'div',
          { class: 'error-entry' },
          h('h3', null, e.title),
          h('p', { style: 'white-space: pre-line' }, sentence(e.message)),
          h('p', { class: 'fix' }, `What to do: ${e.fix}`),
          h('p', { class: 'facts' }, `(while ${e.during})`),
          shown.length > 1
            ? h(
                'button',
                {
                  class: 'small',
                  'data-testid': 'dismiss-error-entry',
                  onclick: () => controller.dismissError(e),
                },
                'Dismiss',
              )
            : null,
        ),
      ),
    );
    const saved = controller.resumable;
    resume.hidden = saved === null;
    const fix = controller.resumeWithCurrentSettings;
    if (saved) {
      replace(
        resume,
        h(
          'div',
          { class: 'body' },
          h('h3', null, fix ? 'Resume after the change?' : 'Resume your last run?'),
          h(
            'p',
            null,
            `Step ${saved.step} of ${saved.modelName}, saved ${formatClock(saved.savedAt)}${saved.reason === 'pause' ? ' on pause' : saved.reason === 'memory' ? ' when memory ran out' : ''}. ` +
              (fix
                ? 'Change what the error names under Configuration and apply it; Resume then goes on from this step with the new settings.'
                : 'Charts and adapters come back as they were.'),
          ),
        ),
        h(
          'button',
          {
            class: 'primary',
            'data-testid': 'resume',
            disabled: !controller.controls().configure,
            onclick: () => void controller.resume(saved),
          },
          `Resume at step ${saved.step}${fix ? ' with the current settings' : ''}`,
        ),
        h('button', { onclick: () => controller.dismissResume() }, 'Start fresh'),
      );
    }
  };
  controller.subscribe((change) => {
    if (change === 'error' || change === 'checkpoint' || change === 'state') render();
  });
  render();
  return h('div', { class: 'notices' }, error, resume);
}

/** The link options a teacher sets before copying: autostart and the controls a lesson hides. */
export interface LinkChoices {
  autostart: boolean;
  hide: string[];
}

/**
 * Controls the Link options offer to hide (their data-control names): every name `hide=` accepts
 * but `pipeline`.
 */
export const HIDEABLE = HIDE_NAMES.filter((name) => name !== 'pipeline');

/** The "Save & share" card. */
export function storagePanel(
  controller: RunController,
  download: Download,
  linkChoices: LinkChoices,
): HTMLElement {
  const checkpointText = h(
    'span',
    { class: 'facts', 'data-testid': 'checkpoint-status' },
    'No checkpoint yet.',
  );
  const saveNow = h(
    'button',
    { class: 'small', onclick: () => void controller.saveCheckpoint('manual') },
    'Save checkpoint now',
  );
  const stamp = () =>
    `${controller.model?.name.replace(/[^\w.-]+/g, '_') ?? 'model'}-step${controller.finishedSteps}`;
  const exportAdapter = h(
    'button',
    {
      'data-testid': 'export-adapter',
      onclick: async () => {
        const files = await controller.exportAdapter();
        if (files) download(`adapter-${stamp()}.zip`, zipFiles(files), 'application/zip');
      },
    },
    'Adapter (PEFT .zip)',
  );
  const exportTrajectories = h(
    'button',
    {
      'data-testid': 'export-trajectories',
      onclick: () =>
        download(
          `trajectories-${stamp()}.jsonl`,
          trajectoriesJsonl(controller.trajectoryLog),
          'application/x-ndjson',
        ),
    },
    'Trajectories (.jsonl)',
  );
  const exportMetrics = h(
    'button',
    {
      'data-testid': 'export-metrics',
      onclick: () => download(`metrics-${stamp()}.csv`, metricsCsv(controller.metrics), 'text/csv'),
    },
    'Metrics (.csv)',
  );
  // the run as a TRL project for GPUs (docs/trl_export.md): made here from the applied config, no
  // worker call, so it is there while the run trains
  const exportTrl = h(
    'button',
    {
      'data-testid': 'export-trl',
      title: 'The same experiment as a Hugging Face TRL project, to run on GPUs',
      onclick: () => {
        try {
          const files = exportTrlProject(controller.config, {
            runLink: controller.fragment || null,
          });
          const encoder = new TextEncoder();
          const bytes = Object.fromEntries(
            Object.entries(files).map(([name, text]) => [name, encoder.encode(text)]),
          );
          download(`trl-${stamp()}.zip`, zipFiles(bytes), 'application/zip');
        } catch (error) {
          controller.showError(error, 'exporting the TRL project');
        }
      },
    },
    'TRL project (.zip)',
  );
  const importInput = h('input', {
    type: 'file',
    multiple: true,
    accept: '.zip,.json,.safetensors',
    'data-testid': 'import-adapter',
    hidden: true,
  });
  importInput.addEventListener('change', async () => {
    try {
      const picked = [...(importInput.files ?? [])];
      let files: Record<string, Uint8Array> = {};
      for (const file of picked) {
        const bytes = new Uint8Array(await file.arrayBuffer());
        if (file.name.endsWith('.zip')) files = { ...files, ...unzipStored(bytes) };
        else files[file.name] = bytes;
      }
      if (!files['adapter_config.json'] || !files['adapter_model.safetensors']) {
        throw new Error(
          'an adapter needs adapter_config.json and adapter_model.safetensors. Fix: pick both files, or the .zip this page exported.',
        );
      }
      await controller.importAdapter(files);
    } catch (error) {
      controller.showError(error, 'importing an adapter');
    } finally {
      importInput.value = '';
    }
  });
  const importButton = h('button', { onclick: () => importInput.click() }, 'Import adapter…');

  const autostart = h('input', { type: 'checkbox', 'data-testid': 'link-autostart' });
  autostart.addEventListener('change', () => {
    linkChoices.autostart = autostart.checked;
  });
  const hideBoxes = HIDEABLE.map((name) => {
    const box = h('input', { type: 'checkbox', value: name });
    box.addEventListener('change', () => {
      linkChoices.hide = hideBoxes.filter((b) => b.checked).map((b) => b.value);
    });
    return box;
  });

  const exportNote = h(
    'div',
    { class: 'hint', 'data-testid': 'export-note' },
    'The adapter and checkpoints wait for a pause: the trainer is busy while it trains. Trajectories and metrics export at any time.',
  );
  const render = () => {
    const last = controller.lastCheckpoint;
    setText(
      checkpointText,
      last
        ? `Checkpoint: step ${last.step}, ${formatClock(last.savedAt)}.`
        : 'Checkpoints are saved every few steps and on pause.',
    );
    const ready = controller.controls().configure && controller.model !== null;
    exportAdapter.disabled = !ready;
    importButton.disabled = !ready;
    saveNow.disabled = !ready || controller.finishedSteps === 0;
    // the trajectories and metrics are the page's own records; the adapter and a checkpoint are
    // read from the trainer worker, which is busy (and mid-update) while the run trains
    const busy =
      controller.model === null
        ? 'Load a model first.'
        : 'Pause the run first: the adapter is read from the trainer, which is busy while it trains.';
    for (const button of [exportAdapter, importButton, saveNow])
      button.title = button.disabled && !ready ? busy : '';
    // said in words too: a title is hover-only, and a phone cannot hover
    exportNote.hidden = ready || controller.model === null;
    exportTrajectories.disabled = controller.trajectoryLog.length === 0;
    exportMetrics.disabled = controller.metrics.length === 0;
  };
  controller.subscribe(render);
  render();
  return h(
    'section',
    { class: 'card', 'data-control': 'storage' },
    h('h2', null, 'Save & share'),
    h(
      'div',
      { class: 'storage' },
      h('div', { class: 'group' }, checkpointText, saveNow),
      h('span', { class: 'sep' }),
      h(
        'div',
        { class: 'group' },
        h('b', null, 'Export'),
        exportAdapter,
        exportTrajectories,
        exportMetrics,
        exportTrl,
        importButton,
        importInput,
      ),
    ),
    exportNote,
    // Each box inside its own label, the pair kept on one line (styles.css): a box never wraps away
    // from its word, and the gap between pairs is wider than the one within a pair.
    h(
      'details',
      { class: 'link-options' },
      h('summary', null, 'Link options (for lessons)'),
      h('label', { class: 'choice' }, autostart, 'start training as soon as the link opens'),
      h(
        'div',
        { class: 'choices', role: 'group', 'aria-label': 'Hide' },
        h('span', null, 'Hide:'),
        ...hideBoxes.map((box) =>
          h('label', { class: 'choice', 'data-testid': `link-hide-${box.value}` }, box, box.value),
        ),
      ),
    ),
  );
}
