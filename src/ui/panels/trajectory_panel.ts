// The trajectory viewer: for one prompt of a step, its G samples side by side; each turn's
// generated text (action mask 1: what the update trains, tinted by the sign of the advantage), the
// sandbox's output or traceback (mask 0: shown to the model, never trained), the final answer,
// reward and advantage. Filters: failures, timeouts, tampered (reward hacking), best, worst. Each
// turn is tagged with the tool it called; a search call and its results have their own colour, so
// a reader sees at a glance which samples looked something up before writing code. With earlier
// runs overlaid (run_comparison.ts), a Run choice shows one of them at the same step.
import type { Trajectory } from '../../rl/types.ts';
import type { RunConfig } from '../../run/config.ts';
import { evalTasksFor, tasksFor } from '../../tasks/registry.ts';
import type { Task } from '../../tasks/task.ts';
import { h, replace } from './dom.ts';
import { formatSigned, formatValue } from '../state/format.ts';
import type { RunController, StepRecord } from '../state/run_controller.ts';
import {
  TRAJECTORY_FILTERS,
  type AnswerLine,
  answerLine,
  filterSamples,
  groupTrajectories,
  outcomeBadges,
  scoredText,
  tamperedText,
  type ScoringContext,
  turnViews,
  type Segment,
  type TrajectoryFilter,
  type TurnView,
} from '../state/trajectory_model.ts';

const OBSERVATION_LABEL: Record<Exclude<TurnView['outcome'], 'tool'>, string> = {
  ok: 'Sandbox output',
  error: 'Traceback',
  timeout: 'Sandbox: timed out',
  format: 'Format feedback',
  answer: '',
  none: 'Observation',
};

/** Short names of the tools on a turn's tag; another registered tool shows under its own name. */
const TOOL_TAG: Record<string, string> = {
  execute_code: 'code',
  search: 'search',
  finish: 'answer',
};

function observationLabel(view: TurnView): string {
  if (view.outcome !== 'tool') return OBSERVATION_LABEL[view.outcome];
  return view.tool === 'search' ? 'Search results' : `${view.tool ?? 'Tool'} result`;
}

/** The colour class of a turn's tag: code, answer, a tool call, or a format error. */
function tagClass(view: TurnView): string {
  if (view.tool === null) return 'tag-format';
  if (view.tool === 'execute_code') return 'tag-code';
  if (view.tool === 'finish') return 'tag-answer';
  return 'tag-call';
}

function tokens(segments: readonly Segment[]): (HTMLElement | string)[] {
  // One span per token shows where tokens start; the class says whether the loss sees it.
  return segments.map((s) =>
    h('span', { class: `tok ${s.kind === 'generated' ? 'g' : 's'}` }, s.text),
  );
}

/** The run's tasks by id, for the one config they were made from (the last one asked). */
let taskIndex: { config: RunConfig; tasks: Map<string, Task> } | null = null;

/** How `t` was scored under `config`: the weights, partial credit and its task. */
function scoringOf(config: RunConfig, t: Trajectory): ScoringContext {
  if (taskIndex?.config !== config) {
    const tasks = new Map<string, Task>();
    try {
      for (const task of [
        ...tasksFor(config.tasks, config.customTasks),
        ...evalTasksFor(config.tasks, config.customTasks),
      ])
        tasks.set(task.id, task);
    } catch {
      // a custom set with no tasks yet: the card says what it can without them
    }
    taskIndex = { config, tasks };
  }
  return {
    weights: config.rewards,
    partialCredit: config.partialCredit,
    task: taskIndex.tasks.get(t.taskId) ?? null,
  };
}

function sampleCard(
  t: Trajectory,
  record: StepRecord,
  scoring: ScoringContext,
  showTokens: boolean,
): HTMLElement {
  const advantageKnown = record.groups !== null;
  const tint = advantageKnown ? (t.advantage > 0 ? ' up' : t.advantage < 0 ? ' down' : '') : '';
  const scored = record.phase !== 'rollout';
  // by default code reads as code and output as output; token by token (with the chat markup the
  // model saw around each observation) on request
  const views = turnViews(t, showTokens ? (record.tokenTexts?.[t.id] ?? null) : null);
  // the answer is the result only where final_answer is scored; before the reward, it is not yet
  const answer: AnswerLine = scored
    ? answerLine(t, scoring)
    : {
        text:
          t.finalAnswer !== null
            ? `final answer: ${t.finalAnswer.trim()}`
            : `no final answer (${t.finishReason.replace('_', ' ')})`,
        tone: 'unscored',
      };
  return h(
    'article',
    {
      class: `sample ${scored ? (t.passed ? 'passed' : 'failed') : ''}`,
      'data-testid': 'trajectory',
      'data-id': t.id,
    },
    h(
      'header',
      null,
      h('span', { class: 'num' }, `#${t.sampleIndex + 1}`),
      ...(scored ? outcomeBadges(t) : []).map((b) =>
        h('span', { class: `badge ${b.tone}`, title: b.detail ?? null }, b.label),
      ),
      h(
        'span',
        { class: 'reward', 'data-testid': 'sample-reward' },
        scored ? `r = ${formatValue(t.reward)}` : 'not scored yet',
        advantageKnown
          ? h(
              'span',
              {
                class: t.advantage > 0 ? 'pos' : t.advantage < 0 ? 'neg' : '',
                'data-testid': 'sample-advantage',
              },
              `  A = ${formatSigned(t.advantage)}`,
            )
          : null,
      ),
    ),
    scored
      ? h('div', { class: 'scored', 'data-testid': 'sample-scored' }, scoredText(t, scoring))
      : null,
    scored && t.tampered.length > 0
      ? h('div', { class: 'tampered-note', 'data-testid': 'sample-tampered' }, tamperedText(t))
      : null,
    ...views.map((view) =>
      h(
        'div',
        { class: 'turn', 'data-tool': view.tool ?? 'none' },
        h(
          'div',
          { class: 'label' },
          h(
            'span',
            { class: `tool-tag ${tagClass(view)}`, 'data-testid': 'turn-tool' },
            view.tool === null ? 'format error' : (TOOL_TAG[view.tool] ?? view.tool),
          ),
          ` Turn ${view.index + 1} · generated (trained)`,
        ),
        h(
          'pre',
          {
            class: `tokens generated${tint}${view.outcome === 'tool' ? ' call' : ''}`,
            'data-testid': 'turn-generated',
            title: view.callInput !== null ? `${view.tool}: ${view.callInput}` : null,
          },
          ...(showTokens ? tokens(view.generated) : [view.generated.map((g) => g.text).join('')]),
        ),
        view.observation !== null
          ? h('div', { class: 'label' }, `${observationLabel(view)} (shown, not trained)`)
          : null,
        view.observation !== null
          ? h(
              'pre',
              {
                class: `tokens shown${view.outcome === 'error' || view.outcome === 'timeout' ? ' error' : view.outcome === 'tool' ? ' result' : ''}`,
                'data-testid': 'turn-observation',
              },
              ...(view.observationTokens
                ? tokens(view.observationTokens)
                : [view.observation || '(no output)']),
            )
          : null,
      ),
    ),
    h(
      'div',
      { class: `answer ${answer.tone}`, 'data-testid': 'sample-answer' },
      answer.tone === 'scored-wrong' ? h('span', { class: 'neg' }, answer.text) : answer.text,
    ),
  );
}

/** The viewer card. */
export function trajectoryPanel(controller: RunController): HTMLElement {
  let stepChoice: number | null = null; // null: follow the newest
  let groupIndex = 0;
  let filter: TrajectoryFilter = 'all';
  let showTokens = false;
  const tokensBox = h('input', { type: 'checkbox', 'data-testid': 'show-tokens' });
  tokensBox.addEventListener('change', () => {
    showTokens = tokensBox.checked;
    render();
  });
  let runChoice: string | null = null; // null: the current run
  const runSelect = h('select', { 'data-testid': 'viewer-run', 'aria-label': 'Run shown' });
  runSelect.addEventListener('change', () => {
    runChoice = runSelect.value === 'current' ? null : runSelect.value;
    render();
  });
  const stepSelect = h('select', { 'data-testid': 'viewer-step', 'aria-label': 'Step shown' });
  stepSelect.addEventListener('change', () => {
    stepChoice = stepSelect.value === 'latest' ? null : Number(stepSelect.value);
    render();
  });
  const tabs = h('div', { class: 'tabs' });
  const filters = h('div', { class: 'tabs', role: 'group', 'aria-label': 'Filter samples' });
  const prompt = h('div', { class: 'prompt' });
  const samples = h('div', { class: 'samples', 'data-testid': 'samples' });

  /** The steps of the run shown, and the config it was scored under. */
  const shownRun = (): { records: StepRecord[]; config: RunConfig } => {
    const overlay = controller.overlays.find((o) => o.id === runChoice);
    if (!overlay) return { records: controller.viewableSteps(), config: controller.config };
    const records = overlay.steps.map(
      (s): StepRecord => ({
        step: s.step,
        phase: 'update',
        trajectories: s.trajectories,
        groups: [],
        tokenTexts: null,
        metrics: overlay.metrics.find((m) => m.step === s.step) ?? null,
      }),
    );
    return { records, config: overlay.config };
  };

  const render = () => {
    const overlays = controller.overlays;
    if (!overlays.some((o) => o.id === runChoice)) runChoice = null;
    runSelect.hidden = overlays.length === 0;
    replace(
      runSelect,
      h('option', { value: 'current' }, 'this run'),
      ...overlays.map((o) => h('option', { value: o.id }, o.label)),
    );
    runSelect.value = runChoice ?? 'current';
    const { records, config } = shownRun();
    replace(
      stepSelect,
      h('option', { value: 'latest' }, 'latest step'),
      ...records
        .slice()
        .reverse()
        .map((r) =>
          h(
            'option',
            { value: String(r.step) },
            `step ${r.step}${r.metrics ? '' : ' (in progress)'}`,
          ),
        ),
    );
    stepSelect.value = stepChoice === null ? 'latest' : String(stepChoice);
    const record =
      (stepChoice === null ? records.at(-1) : records.find((r) => r.step === stepChoice)) ?? null;
    if (!record || record.trajectories.length === 0) {
      replace(tabs);
      prompt.hidden = true;
      replace(samples, h('p', { class: 'empty' }, 'Samples appear here after the rollout phase.'));
      return;
    }
    const groups = groupTrajectories(record.trajectories);
    if (!groups.some((g) => g.groupIndex === groupIndex)) groupIndex = groups[0]!.groupIndex;
    replace(
      tabs,
      ...groups.map((g) => {
        const mean = g.samples.reduce((s, t) => s + t.reward, 0) / g.samples.length;
        return h(
          'button',
          {
            class: `tab${g.groupIndex === groupIndex ? ' on' : ''}`,
            'data-testid': 'viewer-group',
            title: g.prompt,
            onclick: () => {
              groupIndex = g.groupIndex;
              render();
            },
          },
          `${g.taskId.replace(/^[^/]+\//, '')} · ${formatValue(mean)}`,
        );
      }),
    );
    replace(
      filters,
      ...TRAJECTORY_FILTERS.map((f) =>
        h(
          'button',
          {
            class: `tab${f === filter ? ' on' : ''}`,
            'data-testid': `filter-${f}`,
            onclick: () => {
              filter = f;
              render();
            },
          },
          f,
        ),
      ),
    );
    const group = groups.find((g) => g.groupIndex === groupIndex)!;
    prompt.hidden = false;
    replace(prompt, h('b', null, `Step ${record.step} · ${group.taskId}: `), group.prompt);
    const shown = filterSamples(group.samples, filter);
    replace(
      samples,
      ...(shown.length > 0
        ? shown.map((t) => sampleCard(t, record, scoringOf(config, t), showTokens))
        : [h('p', { class: 'empty' }, `No ${filter} in this group.`)]),
    );
  };
  controller.subscribe((change) => {
    if (change === 'phase' || change === 'step' || change === 'reset' || change === 'compare')
      render();
  });
  render();
  return h(
    'section',
    { class: 'card', 'data-control': 'viewer' },
    h('h2', null, 'Trajectories'),
    h(
      'div',
      { class: 'viewer-bar' },
      runSelect,
      stepSelect,
      tabs,
      h('label', { class: 'show-tokens' }, tokensBox, ' tokens and chat markup'),
    ),
    h(
      'div',
      { class: 'viewer-bar' },
      filters,
      h(
        'span',
        { class: 'legend' },
        h(
          'span',
          null,
          h('span', { class: 'swatch', style: 'background:#ddf4ff;border:1px solid #54aeff' }),
          'generated: action mask 1, trained',
        ),
        h(
          'span',
          null,
          h('span', { class: 'swatch', style: 'background:#f0f1f3;border:1px solid #afb8c1' }),
          'shown to the model: mask 0',
        ),
        h(
          'span',
          null,
          h('span', { class: 'swatch', style: 'background:#e6f7ea' }),
          h('span', { class: 'swatch', style: 'background:#fff0ef' }),
          'advantage + / −',
        ),
        h(
          'span',
          null,
          h('span', { class: 'swatch', style: 'background:#fbefff;border:1px solid #a475f9' }),
          'search: the call and its results',
        ),
      ),
    ),
    prompt,
    samples,
  );
}
