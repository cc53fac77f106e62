// The header (title, model, backend, Copy link) and the toolbar (Reset, Train, Pause, Step, Next
// phase; step count, mean reward, status) and the load progress bars.
import { formatBytes, formatParameters } from '../../model_files/memory_estimate.ts';
import type { LoadProgress } from '../../service/trainer_api.ts';
import { h, setText, show } from './dom.ts';
import {
  backendLabel,
  backendProbeDetails,
  backendProbeText,
  formatValue,
} from '../state/format.ts';
import type { RunController } from '../state/run_controller.ts';

/** The dark title bar. `onCopyLink` builds and copies the run link. */
export function headerPanel(
  controller: RunController,
  onCopyLink: () => void,
  lesson: boolean,
): HTMLElement {
  const model = h('span', { 'data-testid': 'model-name' }, '…');
  const backend = h('b', { 'data-testid': 'backend' }, '…');
  const probe = h('span', { class: 'backend-probe', 'data-testid': 'backend-probe' });
  const render = () => {
    const info = controller.model;
    setText(
      model,
      info ? `${info.name} · ${formatParameters(info.parameters)} params` : 'no model loaded',
    );
    setText(
      backend,
      controller.backend
        ? backendLabel(controller.backend)
        : controller.state === 'starting'
          ? 'starting…'
          : 'not started',
    );
    backend.title = controller.backend?.skipped.length
      ? `Skipped: ${controller.backend.skipped.join('; ')}`
      : '';
    const verdict = controller.backend ? controller.backendProbe : null;
    setText(probe, verdict ? backendProbeText(verdict) : '');
    probe.title = verdict ? backendProbeDetails(verdict) : '';
    show(probe, verdict !== null);
  };
  controller.subscribe((change) => {
    if (change === 'model' || change === 'backend' || change === 'state') render();
  });
  render();
  return h(
    'header',
    { class: 'top' },
    h('h1', null, 'Agentic RL Playground', h('small', null, 'GRPO in your browser tab')),
    h('span', { class: 'chip', title: 'The model being trained' }, 'Model ', model),
    h('span', { class: 'chip', title: 'Where the tensors run' }, 'Backend ', backend, ' ', probe),
    lesson ? h('span', { class: 'chip lesson-badge' }, 'Lesson') : null,
    h('span', { class: 'spacer' }),
    h(
      'button',
      {
        'data-testid': 'copy-link',
        'data-control': 'copy-link',
        onclick: onCopyLink,
        title: 'Copy a link that restores this run',
      },
      'Copy link',
    ),
  );
}

/** The controls and live readouts. */
export function toolbarPanel(controller: RunController): HTMLElement {
  const button = (testid: string, label: string, title: string, onclick: () => void, extra = '') =>
    h(
      'button',
      {
        'data-testid': testid,
        'data-control': testid,
        class: `round ${extra}`,
        title,
        onclick,
        disabled: true,
      },
      label,
    );
  const reset = button(
    'reset',
    '⟲ Reset',
    'Back to step 0: fresh adapters, same config',
    () => void controller.reset(),
  );
  const train = button(
    'train',
    '▶ Train',
    'Train until the configured number of steps',
    () => void controller.train(),
    'primary train',
  );
  const pause = button(
    'pause',
    '❚❚ Pause',
    'Stop after the step in flight (and save a checkpoint)',
    () => controller.pause(),
  );
  const step = button(
    'step',
    'Step',
    'Run one whole step: rollout, reward, advantage, update',
    () => void controller.step(),
  );
  const phase = button(
    'phase',
    'Next phase ▸',
    'Run only the next phase, then stop and show its data',
    () => void controller.phase(),
  );
  const stepCount = h('span', { 'data-testid': 'step-count' }, '0');
  const stepTotal = h('small', null, ' / 30');
  const reward = h('span', { 'data-testid': 'reward-mean' }, '–');
  const status = h(
    'div',
    { class: 'status', 'data-testid': 'status', role: 'status', 'aria-live': 'polite' },
    controller.status,
  );
  const render = () => {
    const controls = controller.controls();
    train.disabled = !controls.train;
    pause.disabled = !controls.pause;
    step.disabled = !controls.step;
    phase.disabled = !controls.phase;
    reset.disabled = !controls.reset;
    show(train, controller.state !== 'training' && controller.state !== 'pausing');
    show(pause, controller.state === 'training' || controller.state === 'pausing');
    setText(phase, `Next: ${controller.nextPhase} ▸`);
    setText(stepCount, String(controller.finishedSteps));
    setText(stepTotal, ` / ${controller.config.steps}`);
    setText(reward, formatValue(controller.rewardMean));
    setText(status, controller.status);
  };
  controller.subscribe(render);
  render();
  return h(
    'div',
    { class: 'toolbar' },
    reset,
    train,
    pause,
    step,
    phase,
    h(
      'div',
      { class: 'readout' },
      h('span', { class: 'label' }, 'Step'),
      h('span', { class: 'value' }, stepCount, stepTotal),
    ),
    h(
      'div',
      { class: 'readout' },
      h('span', { class: 'label' }, 'Mean reward'),
      h('span', { class: 'value' }, reward),
    ),
    status,
  );
}

/**
 * One progress bar per loading stage that reports bytes (model files), and one for the Python
 * sandbox's start, which reports none: seconds counted while it starts, then how long it took.
 */
export function progressPanel(controller: RunController): HTMLElement {
  const bars = new Map<string, { root: HTMLElement; fill: HTMLElement; text: HTMLElement }>();
  const labels: Record<string, string> = {
    model: 'Model',
    tokenizer: 'Tokenizer',
    sandbox: 'Python sandbox',
  };
  const row = h('div', { class: 'progress-row', 'data-testid': 'progress' });
  row.hidden = true;
  const bar = (stage: string) => {
    let found = bars.get(stage);
    if (!found) {
      const fill = h('div');
      const text = h('span', { class: 'bytes' });
      const root = h(
        'div',
        { class: 'progress', 'data-testid': `progress-${stage}` },
        h('span', null, labels[stage] ?? stage),
        h('div', { class: 'bar' }, fill),
        text,
      );
      found = { root, fill, text };
      bars.set(stage, found);
      row.append(root);
    }
    return found;
  };
  let ticking: ReturnType<typeof setInterval> | null = null;
  const renderSandbox = () => {
    const start = controller.sandboxStart;
    if (!start) return;
    const { root, fill, text } = bar('sandbox');
    const ready = start.seconds !== null;
    root.classList.toggle('done', ready);
    root.classList.toggle('waiting', !ready);
    fill.style.width = '100%';
    const seconds = ready ? start.seconds! : (Date.now() - start.since) / 1000;
    setText(
      text,
      ready
        ? `ready in ${seconds.toFixed(1)} s`
        : `starting… ${Math.floor(seconds)} s (a first visit takes about 7 s)`,
    );
    row.hidden = false;
    if (ready && ticking !== null) {
      clearInterval(ticking);
      ticking = null;
    } else if (!ready && ticking === null) ticking = setInterval(renderSandbox, 1000);
  };
  const render = (progress: LoadProgress) => {
    if (progress.stage === 'sandbox' && progress.loadedBytes === undefined) return renderSandbox();
    if (progress.stage === 'backend' || progress.loadedBytes === undefined) return;
    const { root, fill, text } = bar(progress.stage);
    const total = progress.totalBytes ?? null;
    const fraction = total ? Math.min(1, progress.loadedBytes / total) : null;
    fill.style.width = fraction === null ? '100%' : `${(fraction * 100).toFixed(1)}%`;
    root.classList.toggle('done', fraction === 1);
    setText(
      text,
      total
        ? `${formatBytes(progress.loadedBytes)} / ${formatBytes(total)}`
        : `${formatBytes(progress.loadedBytes)}`,
    );
    row.hidden = false;
  };
  controller.subscribe((change) => {
    if (change === 'progress') {
      for (const progress of controller.progress.values()) render(progress);
      renderSandbox();
    }
  });
  return row;
}
