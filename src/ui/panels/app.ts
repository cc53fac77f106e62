// The page: reads the run link, lays out the panels around one RunController, and starts the
// trainer. It takes the trainer as anything implementing TrainerApi, so the product passes the
// comlink-wrapped worker and tests pass a fake. The main thread does no tensor work.
import type { TrainerApi } from '../../service/trainer_api.ts';
import type { CheckpointStore } from '../../service/checkpoint_store.ts';
import type { RunHistory } from '../../service/run_history.ts';
import { decodeComparison } from '../../run/compare_link.ts';
import type { RunConfig } from '../../run/config.ts';
import { lessonById } from '../../run/lessons.ts';
import { decodeLink, encodeLink, type DecodedLink } from '../../run/link.ts';
import { presetConfig } from '../../run/presets.ts';
import { chartsPanel } from './charts_panel.ts';
import { comparePanel } from './compare_panel.ts';
import { type LessonPlan, lessonPlan } from '../state/lesson_runner.ts';
import { lessonsPanel } from './lessons_panel.ts';
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
  /** Where finished and paused runs are kept for comparing (IndexedDB); absent: none. */
  history?: RunHistory | null;
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

/** A lesson link's own fields (all but the seed that differ from the default run): on every run. */
function linkOverrides(config: RunConfig): Partial<RunConfig> {
  const base = presetConfig('default');
  return Object.fromEntries(
    Object.entries(config).filter(
      ([key, value]) =>
        key !== 'seed' && JSON.stringify(value) !== JSON.stringify(base[key as keyof RunConfig]),
    ),
  );
}

/** The lesson or shared comparison a link opens, or null; `problems` gets what it could not read. */
async function linkPlan(link: DecodedLink, problems: string[]): Promise<LessonPlan | null> {
  if (link.lesson)
    return lessonPlan(lessonById(link.lesson), link.config.seed, linkOverrides(link.config));
  if (link.compare === null) return null;
  const { runs, errors } = await decodeComparison(link.compare);
  problems.push(...errors);
  if (runs.length < 2) return null;
  return { id: 'comparison', lesson: null, seed: runs[0]!.config.seed, overrides: {}, runs };
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
  const planProblems: string[] = [];
  const plan = await linkPlan(link, planProblems);
  if (plan) link.config = plan.runs[0]!.config;
  const report = linkReport(link);
  const controller = new RunController({
    hidden: report.hide,
    trainer,
    proxy: deps.proxy,
    checkpoints: deps.checkpoints,
    history: deps.history ?? null,
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

  // a lesson's or a comparison's link: in the address bar, the clipboard and the link box
  const share = async (fragment: string) => {
    deps.setHash?.(fragment);
    const address = `${deps.url.split('#')[0]!}${fragment}`;
    let copied = false;
    try {
      if (deps.copyText) {
        await deps.copyText(address);
        copied = true;
      }
    } catch {
      copied = false;
    }
    const field = h('input', {
      class: 'link-box mono',
      readonly: true,
      'data-testid': 'link-text',
      value: address,
    });
    replace(
      linkBox,
      h(
        'div',
        { class: 'body' },
        h('b', null, copied ? 'Link copied. ' : 'Copy this link: '),
        'It trains the same runs one after another and draws them together; the same seed and backend give the same samples.',
        field,
      ),
      h('button', { class: 'small', onclick: () => (linkBox.hidden = true) }, 'Close'),
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
    lessonsPanel(controller, share),
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
      h(
        'div',
        { class: 'col charts-col' },
        chartsPanel(controller),
        timelinePanel(controller),
        comparePanel(controller, share),
      ),
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
  if (planProblems.length > 0)
    controller.showError(
      new Error(
        `${planProblems.join('\n')}\nFix: ask for a fresh link (Copy link to this comparison).`,
      ),
      LINK_DURING,
      'This comparison link is damaged',
    );

  const started = await controller.start(link.config);
  if (plan) controller.openLesson(plan);
  // a link with any mistake waits for Train: the error says what was wrong
  if (started && report.autostart && planProblems.length === 0) {
    const training = plan ? controller.runLesson(plan) : controller.train();
    void training.catch((error) =>
      controller.showError(
        new Error(errorMessage(error)),
        plan ? 'running the lesson' : 'training',
      ),
    );
  }
  return controller;
}
