// The pipeline of one step (rollout → reward → advantage → update) with the phase running now, and
// the data the last phase produced: for teaching, "Next phase" stops after each and this panel
// shows the samples, their rewards, the advantage arithmetic, and what the update did.
import type { Phase, PhaseReport } from '../../service/trainer_api.ts';
import type { Trajectory } from '../../rl/types.ts';
import { h, replace } from './dom.ts';
import { formatSigned, formatValue } from '../state/format.ts';
import { PHASES, type RunController } from '../state/run_controller.ts';
import { maskSummary } from '../state/trajectory_model.ts';
import { firstPhaseHint } from '../state/status_text.ts';
import { updateSummary } from '../state/update_summary.ts';

const ABOUT: Record<Phase, { title: string; what: string }> = {
  rollout: { title: '1 Rollout', what: 'G episodes per prompt: code, run, read, revise' },
  reward: { title: '2 Reward', what: 'score each episode with verifiable checks' },
  advantage: { title: '3 Advantage', what: '(r − mean) / std within each group' },
  update: { title: '4 Update', what: 'make better-than-average tokens likelier (clipped, − β·KL)' },
};

function rolloutData(report: PhaseReport): HTMLElement {
  const t = report.trajectories;
  const groups = new Set(t.map((x) => x.groupIndex)).size;
  const turns = t.reduce((sum, x) => sum + x.turns.length, 0) / Math.max(1, t.length);
  const timeouts = t.filter((x) => x.timedOut).length;
  const answered = t.filter((x) => x.finalAnswer !== null).length;
  return h(
    'div',
    null,
    h(
      'h3',
      null,
      `Rollout of step ${report.step}: ${t.length} episodes (${groups} prompts × ${t.length / Math.max(1, groups)} samples)`,
    ),
    h(
      'div',
      { class: 'stats' },
      h('span', null, `turns per episode ${formatValue(turns)}`),
      h('span', null, `answered ${answered}/${t.length}`),
      h('span', null, `timeouts ${timeouts}`),
    ),
    h(
      'p',
      null,
      'Each sample below is one episode. Blue text is what the model generated: only those tokens will be trained.',
    ),
  );
}

function rewardTable(
  trajectories: readonly Trajectory[],
  cell: (t: Trajectory) => HTMLElement | string,
  label: string,
): HTMLElement {
  const byGroup = new Map<number, Trajectory[]>();
  for (const t of trajectories)
    byGroup.set(t.groupIndex, [...(byGroup.get(t.groupIndex) ?? []), t]);
  const width = Math.max(0, ...[...byGroup.values()].map((g) => g.length));
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      null,
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', null, 'prompt'),
          ...Array.from({ length: width }, (_, i) => h('th', null, `${label} ${i + 1}`)),
        ),
      ),
      h(
        'tbody',
        null,
        ...[...byGroup.values()].map((group) =>
          h(
            'tr',
            null,
            h('td', null, group[0]!.taskId),
            ...group
              .sort((a, b) => a.sampleIndex - b.sampleIndex)
              .map((t) => h('td', null, cell(t))),
          ),
        ),
      ),
    ),
  );
}

function rewardData(report: PhaseReport): HTMLElement {
  const mean =
    report.trajectories.reduce((s, t) => s + t.reward, 0) / Math.max(1, report.trajectories.length);
  return h(
    'div',
    null,
    h('h3', null, `Rewards of step ${report.step}: mean ${formatValue(mean)}`),
    rewardTable(
      report.trajectories,
      (t) =>
        h(
          'span',
          {
            class: t.passed ? 'pos' : 'neg',
            title: Object.entries(t.rewardParts)
              .map(([k, v]) => `${k}: ${v}`)
              .join(', '),
          },
          `${formatValue(t.reward)} ${t.passed ? '✓' : '✗'}`,
        ),
      'r',
    ),
  );
}

function advantageData(report: PhaseReport): HTMLElement {
  const groups = report.groups ?? [];
  return h(
    'div',
    null,
    h('h3', null, `Advantages of step ${report.step}`),
    h('span', { class: 'formula' }, 'Aᵢ = (rᵢ − mean(r)) / std(r)'),
    ' with the sample std (n − 1); A = 0 when all rewards are equal.',
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        null,
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            h('th', null, 'prompt'),
            h('th', null, 'rewards'),
            h('th', null, 'mean'),
            h('th', null, 'std'),
            h('th', null, 'advantages'),
          ),
        ),
        h(
          'tbody',
          null,
          ...groups.map((g) =>
            h(
              'tr',
              null,
              h('td', null, g.taskId),
              h('td', null, g.rewards.map((r) => formatValue(r)).join('  ')),
              h('td', null, formatValue(g.mean)),
              h('td', null, g.zeroStd ? '0 (no signal)' : formatValue(g.std)),
              h(
                'td',
                null,
                ...g.advantages.flatMap((a, i) => [
                  i > 0 ? '  ' : '',
                  h('span', { class: a > 0 ? 'pos' : a < 0 ? 'neg' : '' }, formatSigned(a)),
                ]),
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

function updateData(report: PhaseReport): HTMLElement {
  const m = report.metrics;
  const trained = report.trajectories.filter((t) => !t.prefixBroken);
  const tokens = trained.reduce((sum, t) => sum + maskSummary(t).trained, 0);
  const total = trained.reduce((sum, t) => sum + maskSummary(t).total, 0);
  const summary = updateSummary(report.trajectories, report.groups, m);
  return h(
    'div',
    null,
    h('h3', null, `Update of step ${report.step}`),
    m?.update_skipped ? h('p', { class: 'neg' }, `Update skipped: ${m.update_skipped}`) : null,
    h(
      'div',
      { class: 'stats' },
      h('span', null, 'loss ', h('b', null, formatValue(m?.loss))),
      h('span', null, 'KL ', h('b', null, formatValue(m?.kl))),
      h('span', null, 'clip fraction ', h('b', null, formatValue(m?.clip_fraction))),
      h('span', null, 'entropy ', h('b', null, formatValue(m?.entropy))),
      h('span', null, 'grad norm ', h('b', null, formatValue(m?.grad_norm))),
    ),
    h(
      'p',
      null,
      `Trained on ${m?.trained_trajectories ?? trained.length} trajectories: ${tokens} generated tokens of ${total} (the rest is prompt, markup and observations, mask 0). `,
    ),
    h(
      'p',
      { class: summary.signal ? null : 'no-signal', 'data-testid': 'update-summary' },
      summary.text,
    ),
  );
}

/** The pipeline card. */
export function phasePanel(controller: RunController): HTMLElement {
  const boxes = new Map<Phase, HTMLElement>(
    PHASES.map((phase) => [
      phase,
      h(
        'div',
        { class: 'phase', 'data-testid': `phase-${phase}` },
        h('div', { class: 'title' }, ABOUT[phase].title),
        h('div', { class: 'what' }, ABOUT[phase].what),
      ),
    ]),
  );
  const data = h('div', { class: 'phase-data', 'data-testid': 'phase-data' });
  const render = () => {
    const report = controller.lastReport;
    const doneUpTo =
      controller.current && report
        ? PHASES.indexOf(report.phase)
        : report?.phase === 'update'
          ? 3
          : -1;
    PHASES.forEach((phase, i) => {
      const box = boxes.get(phase)!;
      box.classList.toggle('done', i <= doneUpTo && controller.activePhase !== phase);
      box.classList.toggle('active', controller.activePhase === phase);
      box.classList.toggle(
        'next',
        controller.activePhase === null &&
          controller.state === 'idle' &&
          controller.nextPhase === phase &&
          controller.model !== null,
      );
    });
    if (!report) {
      replace(data, h('p', { class: 'empty' }, firstPhaseHint(controller.hidden)));
      return;
    }
    replace(
      data,
      report.phase === 'rollout'
        ? rolloutData(report)
        : report.phase === 'reward'
          ? rewardData(report)
          : report.phase === 'advantage'
            ? advantageData(report)
            : updateData(report),
    );
  };
  controller.subscribe((change) => {
    if (change === 'phase' || change === 'step' || change === 'reset' || change === 'state')
      render();
  });
  render();
  return h(
    'section',
    { class: 'card', 'data-control': 'pipeline' },
    h('h2', null, 'One step of GRPO'),
    h('div', { class: 'pipeline' }, ...boxes.values()),
    data,
  );
}
