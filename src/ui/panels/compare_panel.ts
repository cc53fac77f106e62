// The Compare runs card (docs/page.md "Compare runs"): the runs this browser kept (finished or
// paused, newest first, at most HISTORY_CAP), each with what it set differently from the current
// run; Overlay draws one on every chart beside the current run, Delete forgets it. With runs
// overlaid, a link to the comparison reproduces them all (src/run/compare_link.ts).
import { encodeComparison } from '../../run/compare_link.ts';
import { HISTORY_CAP } from '../../service/run_history.ts';
import { formatClock } from '../state/format.ts';
import type { RunController } from '../state/run_controller.ts';
import { differsFrom } from '../state/run_comparison.ts';
import { h, replace } from './dom.ts';
import type { ShareLink } from './lessons_panel.ts';

/** The card. */
export function comparePanel(controller: RunController, share: ShareLink): HTMLElement {
  const list = h('ul', { class: 'history', 'data-testid': 'history' });
  const actions = h('div', { class: 'history-actions' });
  const render = () => {
    const overlaid = new Set(controller.overlays.map((o) => o.id));
    const current = controller.comparison.runs.find((r) => r.current);
    const runs = controller.history;
    replace(
      list,
      ...(runs.length === 0
        ? [
            h(
              'li',
              { class: 'empty' },
              'Finished and paused runs are kept here, so you can draw an earlier run beside this one.',
            ),
          ]
        : runs.map((run) => {
            const on = overlaid.has(run.id);
            const isCurrent = run.id === current?.id;
            return h(
              'li',
              { 'data-testid': 'history-run', 'data-id': run.id },
              h('b', null, run.label),
              h(
                'span',
                { class: 'facts' },
                ` · ${run.modelName} on ${run.config.tasks} · ${run.metrics.length} steps · ${run.reason} ${formatClock(run.savedAt)}`,
              ),
              isCurrent
                ? h('span', { class: 'facts' }, ' · this run')
                : h(
                    'span',
                    { class: 'facts' },
                    ` · vs this run: ${differsFrom(run.config, controller.config)}`,
                  ),
              isCurrent
                ? null
                : h(
                    'button',
                    {
                      class: 'small',
                      'data-testid': on ? 'history-hide' : 'history-overlay',
                      onclick: () =>
                        on ? controller.hideOverlay(run.id) : void controller.overlayRun(run.id),
                    },
                    on ? 'Hide' : 'Overlay',
                  ),
              h(
                'button',
                {
                  class: 'small',
                  'data-testid': 'history-delete',
                  onclick: () => void controller.deleteRun(run.id),
                },
                'Delete',
              ),
            );
          })),
    );
    const shown = controller.comparison.runs;
    replace(
      actions,
      shown.length > 1 && current && current.metrics.length > 0
        ? h(
            'button',
            {
              class: 'small',
              'data-testid': 'compare-share',
              onclick: () =>
                void encodeComparison(
                  shown.map((r) => ({ label: r.label, config: r.config })),
                ).then(share),
            },
            'Copy link to this comparison',
          )
        : null,
      runs.length > 0
        ? h(
            'button',
            {
              class: 'small',
              'data-testid': 'history-clear',
              onclick: () => void controller.clearHistory(),
            },
            'Delete all',
          )
        : null,
    );
  };
  controller.subscribe((change) => {
    if (change === 'compare' || change === 'config' || change === 'reset') render();
  });
  render();
  return h(
    'section',
    { class: 'card', 'data-control': 'compare', 'data-testid': 'compare' },
    h('h2', null, 'Compare runs'),
    h(
      'p',
      { class: 'caption' },
      `This browser keeps the last ${HISTORY_CAP} finished or paused runs. Overlay draws one on every chart, dashed, beside the current run.`,
    ),
    list,
    actions,
  );
}
