// The timeline: a Gantt strip per recent step, one row per lane (trainer, rollout, each sandbox
// slot), coloured by what the lane was doing, so "where does the time go" reads at a glance.
// Redrawn when a step finishes; the section carries `data-steps` (strips shown) for automation.
import { SPAN_KINDS, timelineCaption, timelineSteps } from '../state/timeline_model.ts';
import { h, replace, setText } from './dom.ts';
import type { RunController } from '../state/run_controller.ts';

const colorOf = new Map(SPAN_KINDS.map((k) => [k.kind, k.color]));

/** The timeline card. */
export function timelinePanel(controller: RunController): HTMLElement {
  const body = h('div', { class: 'timeline-steps' });
  const legend = h(
    'div',
    { class: 'chart-legend' },
    ...SPAN_KINDS.map((k) =>
      h('span', null, h('span', { class: 'swatch', style: `background:${k.color}` }), k.label),
    ),
  );
  const caption = h('div', { class: 'caption', 'data-testid': 'timeline-caption' });
  const section = h(
    'section',
    { class: 'card', 'data-control': 'timeline', 'data-testid': 'timeline', 'data-steps': '0' },
    h('h2', null, 'Where the time goes'),
    caption,
    legend,
    body,
  );
  const draw = () => {
    setText(caption, timelineCaption(controller.config.async));
    const steps = timelineSteps(controller.metrics);
    section.setAttribute('data-steps', String(steps.length));
    if (steps.length === 0) {
      replace(body, h('div', { class: 'chart-empty-inline' }, 'waiting for the first step'));
      return;
    }
    replace(
      body,
      ...steps.map((step) =>
        h(
          'div',
          { class: 'timeline-step', 'data-step': step.step },
          h(
            'div',
            { class: 'timeline-head' },
            h('b', null, `step ${step.step}`),
            ` ${step.secondsWall.toFixed(1)} s · ${step.summary}`,
          ),
          ...step.lanes.map((lane) =>
            h(
              'div',
              { class: 'timeline-lane', 'data-lane': lane.lane },
              h('span', { class: 'timeline-label mono' }, lane.lane),
              h(
                'span',
                { class: 'timeline-track' },
                ...lane.bars.map((bar) =>
                  h('span', {
                    class: 'timeline-bar',
                    'data-kind': bar.kind,
                    title: bar.title,
                    style: `left:${bar.leftPercent.toFixed(2)}%;width:${Math.max(bar.widthPercent, 0.3).toFixed(2)}%;background:${colorOf.get(bar.kind) ?? '#888'}`,
                  }),
                ),
              ),
            ),
          ),
          h(
            'div',
            { class: 'timeline-lane timeline-axis', 'data-testid': 'timeline-axis' },
            h('span', { class: 'timeline-label' }),
            h(
              'span',
              { class: 'timeline-ticks' },
              ...step.ticks.map((tick) =>
                h(
                  'span',
                  {
                    // a mark near the end labels to its left, inside the strip
                    class: tick.leftPercent > 85 ? 'timeline-tick end' : 'timeline-tick',
                    'data-seconds': String(tick.seconds),
                    style: `left:${tick.leftPercent.toFixed(2)}%`,
                  },
                  tick.label,
                ),
              ),
            ),
          ),
        ),
      ),
    );
  };
  controller.subscribe((change) => {
    if (change === 'step' || change === 'reset' || change === 'config') draw();
  });
  draw();
  return section;
}
