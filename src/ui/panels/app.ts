// The page: reads the run link, lays out the panels around one RunController, and starts the
// trainer. It takes the trainer as anything implementing TrainerApi, so the product passes the
// comlink-wrapped worker and tests pass a fake. The main thread does no tensor work.
import type { TrainerApi } from '../../service/trainer_api.ts';
import type { CheckpointStore } from '../../service/checkpoint_store.ts';
import { decodeLink, encodeLink, type DecodedLink } from '../../run/link.ts';
import { chartsPanel } from './charts_panel.ts';
import { configPanel } from './config_panel.ts';
import { h, replace } from './dom.ts';
import { errorMessage } from '../state/errors.ts';
import { editText, linkEdits, type FormEdits } from '../state/link_edits.ts';
import { linkReport } from '../state/link_report.ts';
import { modelPanel, type Settings } from './model_panel.ts';
import { phasePanel } from './phase_panel.ts';
import { RunController, type ControllerDeps } from '../state/run_controller.ts';
import { noticesPanel, storagePanel, type Download, type LinkChoices } from './storage_panel.ts';
import { headerPanel, progressPanel, toolbarPanel } from './toolbar_panel.ts';
import { timelinePanel } from './timeline_panel.ts';
import { trajectoryPanel } from './trajectory_panel.ts';

/** What the page needs from its surroundings (the browser in the product, stubs in tests). */
export interface AppDeps {
  /** Comlink.proxy in the product: callbacks must be proxied to cross into the worker. */
  proxy: ControllerDeps['proxy'];
  checkpoints: CheckpointStore | null;
  settings: Settings;
  /** The address the page was opened with (its `#…` is the run link). */
  url: string;
  /** Shows the run link in the address bar without reloading. */
  setHash?: (fragment: string) => void;
  /** Copies text to the clipboard; may reject (no permission, insecure context). */
  copyText?: (text: string) => Promise<void>;
  download: Download;
  checkModel?: ControllerDeps['checkModel'];
  estimateCost?: ControllerDeps['estimateCost'];
  checkpointEvery?: number;
}

/** What the page was doing when the link's mistakes are shown (the error area's "while …"). */
const LINK_DURING = 'opening the run link';

/** The run the page was opened with: its `#…` link, or the `default` preset when it has none. */
async function readLink(url: string): Promise<DecodedLink> {
  const hash = url.indexOf('#');
  return decodeLink(hash >= 0 ? url.slice(hash + 1) : '');
}

/**
 * Builds the page into `root` and starts the run; resolves to the controller (for tests and lesson
 * scripts).
 */
export async function startApp(
  root: HTMLElement,
  trainer: TrainerApi,
  deps: AppDeps,
): Promise<RunController> {
  const link = await readLink(deps.url);
  const report = linkReport(link);
  const controller = new RunController({
    hidden: report.hide,
    trainer,
    proxy: deps.proxy,
    checkpoints: deps.checkpoints,
    checkModel: deps.checkModel,
    estimateCost: deps.estimateCost,
    checkpointEvery: deps.checkpointEvery,
    settings: deps.settings,
  });
  controller.config = link.config;
  const choices: LinkChoices = { autostart: false, hide: [] };
  const linkBox = h('div', { class: 'notice info', 'data-testid': 'link-box' });
  linkBox.hidden = true;
  const linkNotice = h('div', { class: 'notice info', 'data-testid': 'link-notice' });
  linkNotice.hidden = report.notice === null;
  linkNotice.append(
    h('div', { class: 'body', style: 'white-space: pre-line' }, report.notice ?? ''),
    h(
      'button',
      {
        class: 'small',
        onclick: () => {
          linkNotice.hidden = true;
        },
      },
      'Close',
    ),
  );
  // what the notice and the link's error say is about the link's run: once another run is
  // applied, they have nothing to say
  const opened = JSON.stringify(link.config);
  controller.subscribe((change) => {
    if (change === 'config' && JSON.stringify(controller.config) !== opened) {
      linkNotice.hidden = true;
      controller.clearErrors((e) => e.during === LINK_DURING);
    }
  });

  // the form's values and refused inputs: Copy link carries every valid unapplied edit
  let form: FormEdits | null = null;
  const copyLink = async (anyway = false) => {
    const edits = linkEdits(controller.config, form);
    const fragment = await encodeLink(edits.config, choices);
    const base = deps.url.split('#')[0]!;
    const address = `${base}${fragment}`;
    // an edit it cannot carry is said before anything is copied; the person decides
    const hold = edits.leftOut.length > 0 && !anyway;
    let copied = false;
    if (!hold) {
      deps.setHash?.(fragment);
      try {
        if (deps.copyText) {
          await deps.copyText(address);
          copied = true;
        }
      } catch {
        copied = false; // the box below still lets a person copy it by hand
      }
    }
    const field = h('input', {
      class: 'link-box mono',
      readonly: true,
      'data-testid': 'link-text',
      value: address,
    });
    const edited = edits.carried.length > 0 || edits.leftOut.length > 0;
    replace(
      linkBox,
      h(
        'div',
        { class: 'body' },
        h('b', null, hold ? 'Not copied yet. ' : copied ? 'Link copied. ' : 'Copy this link: '),
        hold
          ? 'Some edits in the form cannot go into a link (below): fix them and press Copy link again, or copy the link without them.'
          : edited
            ? `It restores the configuration in the form${edits.leftOut.length > 0 ? ', but for the edits below' : ''} (seed included); the same seed and backend give the same first-step samples.`
            : 'It restores this configuration (seed included); the same seed and backend give the same first-step samples.',
        edits.carried.length > 0
          ? h(
              'div',
              { class: 'link-edits', 'data-testid': 'link-carried' },
              `It carries your unapplied edits: ${edits.carried
                .map((e) => `${e.field} ${editText(e.to)} (applied: ${editText(e.from)})`)
                .join('; ')}. This page runs them once you press Apply.`,
            )
          : null,
        edits.leftOut.length > 0
          ? h(
              'div',
              { class: 'link-edits left-out', 'data-testid': 'link-left-out' },
              `It leaves out ${edits.leftOut.length === 1 ? 'this edit' : `these ${edits.leftOut.length} edits`} and keeps the applied value${edits.leftOut.length === 1 ? '' : 's'}:`,
              h(
                'ul',
                null,
                ...edits.leftOut.map((e) =>
                  h('li', null, `${e.field} (applied: ${editText(e.from)}): ${e.reason}`),
                ),
              ),
            )
          : null,
        field,
        hold
          ? h(
              'button',
              {
                class: 'small',
                'data-testid': 'copy-anyway',
                onclick: () =>
                  void copyLink(true).catch((error) =>
                    controller.showError(error, 'making the link'),
                  ),
              },
              'Copy without them',
            )
          : null,
      ),
      h(
        'button',
        {
          class: 'small',
          onclick: () => {
            linkBox.hidden = true;
          },
        },
        'Close',
      ),
    );
    linkBox.hidden = false;
    field.select();
  };

  const lesson = link.hide.length > 0;
  replace(
    root,
    headerPanel(
      controller,
      () => void copyLink().catch((error) => controller.showError(error, 'making the link')),
      lesson,
    ),
    toolbarPanel(controller),
    progressPanel(controller),
    noticesPanel(controller),
    h('div', { class: 'notices' }, linkNotice, linkBox),
    h(
      'main',
      { class: 'layout' },
      h(
        'div',
        { class: 'col setup-col' },
        modelPanel(controller, deps.settings),
        configPanel(controller, (edits) => {
          form = edits;
        }),
      ),
      h(
        'div',
        { class: 'col main-col' },
        phasePanel(controller),
        trajectoryPanel(controller),
        storagePanel(controller, deps.download, choices),
      ),
      h('div', { class: 'col charts-col' }, chartsPanel(controller), timelinePanel(controller)),
    ),
  );

  // Lesson mode: hide what the link names (by data-control), keep everything else working. The
  // attribute's rule (styles.css) wins over the panels' own showing and hiding (the toolbar shows
  // Train or Pause by state), so a hidden control stays hidden in every state.
  for (const name of report.hide) {
    for (const element of root.querySelectorAll<HTMLElement>(
      `[data-control="${CSS.escape(name)}"]`,
    ))
      element.setAttribute('data-lesson-hidden', '');
  }
  if (report.error !== null) {
    controller.showError(new Error(report.error), LINK_DURING, report.title);
  }

  const started = await controller.start(link.config);
  // a link with any mistake waits for Train: the error says what was wrong
  if (started && report.autostart) {
    void controller
      .train()
      .catch((error) => controller.showError(new Error(errorMessage(error)), 'training'));
  }
  return controller;
}
