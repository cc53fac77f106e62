// The Lessons gallery (docs/page.md "Lessons gallery"): one card per lesson (src/run/lessons.ts)
// with its question, the runs it compares as changes from the default run, what to watch, the
// result measured with `cli lesson`, and Run this lesson, which trains the runs one after
// another and overlays them on the charts. A lesson opened from a link (`#lesson=ID`) is shown
// open and first; once it is done its card lists the compared figures of this page's runs and
// offers a link that reproduces them.
import { encodeComparison } from '../../run/compare_link.ts';
import { describeChanges } from '../../run/config_words.ts';
import { type FigureId, formatFigure } from '../../run/lesson_figures.ts';
import type { LessonSummary } from '../../run/lesson_summary.ts';
import { LESSONS, type Lesson, lessonCommand } from '../../run/lessons.ts';
import { encodeLink } from '../../run/link.ts';
import { presetConfig } from '../../run/presets.ts';
import { errorMessage } from '../state/errors.ts';
import { type LessonPlan, type LessonProgress, lessonPlan } from '../state/lesson_runner.ts';
import type { RunController } from '../state/run_controller.ts';
import { h, replace, setText } from './dom.ts';

/** Copies a link, or shows it to copy by hand (as Copy link does). */
export type ShareLink = (fragment: string) => Promise<void>;

/**
 * The link that reproduces a lesson's runs (`#lesson=ID`, its seed and the fields set on every run),
 * or a shared comparison's (`#compare=…`).
 */
export async function planLink(plan: LessonPlan): Promise<string> {
  if (!plan.lesson) return encodeComparison(plan.runs);
  const run = await encodeLink(presetConfig('default', { ...plan.overrides, seed: plan.seed }));
  return `#lesson=${plan.id}&${run.slice(1)}`;
}

/** The summary's figures as a table: a row per figure, a column per run. */
function summaryTable(lesson: Lesson, summary: LessonSummary): HTMLElement {
  const labels = lesson.runs.map((run) => run.label);
  return h(
    'table',
    { class: 'lesson-summary', 'data-testid': 'lesson-summary' },
    h(
      'tr',
      null,
      h('th', null, `this page, seed ${summary.seeds.join(', ')}`),
      ...labels.map((l) => h('th', null, l)),
    ),
    ...Object.entries(summary.figures).map(([id, figure]) =>
      h(
        'tr',
        null,
        h('td', null, figure.label),
        ...labels.map((label) =>
          h('td', null, formatFigure(id as FigureId, figure.mean[label] ?? null)),
        ),
      ),
    ),
  );
}

/** What a lesson's card says about its progress. */
function progressText(progress: LessonProgress): string {
  const { plan, run, state } = progress;
  const label = plan.runs[run]?.label ?? '';
  switch (state) {
    case 'ready':
      return `Ready: ${plan.runs.length} runs at seed ${plan.seed}. Press Run this lesson.`;
    case 'running':
      return `Training run ${run + 1} of ${plan.runs.length}: ${label}.`;
    case 'stopped':
      return `Stopped during run ${run + 1} (${label}). Press Run this lesson to start again.`;
    case 'done':
      return `Done: ${plan.runs.length} runs at seed ${plan.seed}, drawn together on the charts.`;
  }
}

/** One lesson's card. */
function lessonCard(
  lesson: Lesson,
  controller: RunController,
  share: ShareLink,
): { root: HTMLElement; render: () => void } {
  const base = presetConfig('default');
  const run = h(
    'button',
    {
      class: 'primary',
      'data-testid': 'lesson-run',
      onclick: () => {
        const opened = controller.lesson;
        const plan =
          opened?.plan.id === lesson.id ? opened.plan : lessonPlan(lesson, controller.config.seed);
        void controller
          .runLesson(plan)
          .catch((error) =>
            controller.showError(new Error(errorMessage(error)), 'running the lesson'),
          );
      },
    },
    'Run this lesson',
  );
  const status = h('p', { class: 'lesson-progress', 'data-testid': 'lesson-progress' });
  const results = h('div');
  const root = h(
    'article',
    { class: 'lesson-card', 'data-testid': `lesson-${lesson.id}` },
    h('h3', null, lesson.title),
    h('p', { class: 'lesson-question' }, lesson.question),
    h(
      'div',
      { class: 'lesson-runs' },
      'Compares (changes from the default run):',
      h(
        'ul',
        null,
        ...lesson.runs.map((r, index) =>
          h(
            'li',
            null,
            h('b', null, r.label),
            `: ${describeChanges(lessonPlan(lesson, base.seed).runs[index]!.config, base, { omit: ['seed'] })}`,
          ),
        ),
      ),
    ),
    h('p', null, h('b', null, 'Watch: '), lesson.watch),
    h(
      'p',
      { class: 'lesson-result' },
      h('b', null, 'Measured here: '),
      lesson.result,
      ' ',
      h('code', { class: 'mono' }, lessonCommand(lesson)),
    ),
    h('div', { class: 'lesson-actions' }, run, status),
    results,
  );
  const render = () => {
    const progress = controller.lesson?.plan.id === lesson.id ? controller.lesson : null;
    const busy = controller.lesson?.state === 'running' || !controller.controls().train;
    run.disabled = busy && progress?.state !== 'ready';
    if (controller.lesson?.state === 'running') run.disabled = true;
    root.classList.toggle('active', progress !== null);
    status.hidden = progress === null;
    if (progress) setText(status, progressText(progress));
    if (progress?.state !== 'done' || !progress.summary) {
      replace(results);
      return;
    }
    replace(
      results,
      summaryTable(lesson, progress.summary),
      h(
        'button',
        {
          class: 'small',
          'data-testid': 'lesson-share',
          onclick: () => void planLink(progress.plan).then(share),
        },
        'Copy link to this comparison',
      ),
    );
  };
  return { root, render };
}

/** The gallery. */
export function lessonsPanel(controller: RunController, share: ShareLink): HTMLElement {
  const cards = [...LESSONS.values()].map((lesson) => ({
    id: lesson.id,
    ...lessonCard(lesson, controller, share),
  }));
  const grid = h('div', { class: 'lesson-grid' }, ...cards.map((c) => c.root));
  const details = h(
    'details',
    { class: 'lessons' },
    h(
      'summary',
      null,
      h('b', null, 'Lessons'),
      ': six questions about RL, each answered by training two runs and drawing them together',
    ),
    grid,
  );
  let opened: string | null = null;
  const render = () => {
    const active = controller.lesson?.plan.id ?? null;
    // a lesson opened from a link, or started here, comes first and opens the gallery once
    if (active !== opened) {
      opened = active;
      const card = cards.find((c) => c.id === active);
      if (card) {
        grid.prepend(card.root);
        details.open = true;
      }
    }
    for (const card of cards) card.render();
  };
  controller.subscribe((change) => {
    if (change === 'compare' || change === 'state' || change === 'step') render();
  });
  render();
  return h(
    'section',
    { class: 'card lessons-card', 'data-testid': 'lessons', 'data-control': 'lessons' },
    details,
  );
}
