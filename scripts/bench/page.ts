// The default run in the browser (the README's performance figures): open the built page in headless
// Chromium, wait for the demo model, press Train, and report time to the first trained step,
// seconds per step by phase, and the main thread's longest task while training. With --reload, then
// the same page reloaded (the same browser storage: the sandbox starts from the snapshot the first
// visit kept).
//   npx vite build && npx tsx scripts/bench/page.ts [--steps 3] [--reload]
import { parseArgs } from 'node:util';
import { launchBrowser, servePage, waitForIdle, waitForStep } from '../browser.ts';

const { values } = parseArgs({
  options: { steps: { type: 'string', default: '3' }, reload: { type: 'boolean', default: false } },
});
const steps = Number(values.steps);
const server = await servePage(true);
const browser = await launchBrowser();
const page = await browser.newPage();
const opened = performance.now();
await page.addInitScript(() => {
  const w = window as unknown as { longest: number; longTasks: number[] };
  w.longest = 0;
  w.longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      w.longTasks.push(e.duration);
    }
  }).observe({ type: 'longtask', buffered: true });
});
await page.goto(server.url);
await waitForIdle(page);
const ready = performance.now();
await page.evaluate(() => {
  (window as unknown as { longTasks: number[] }).longTasks = [];
});
await page.click('[data-testid=train]');
await waitForStep(page, 1);
const firstStep = performance.now();
await waitForStep(page, steps, 1_800_000);
const done = performance.now();
const longTasks = await page.evaluate(
  () => (window as unknown as { longTasks: number[] }).longTasks,
);
const perStep = await page.evaluate(() =>
  (
    window as unknown as { playground: { metrics: Record<string, number>[] } }
  ).playground.metrics.map((m) => ({
    step: m.step,
    seconds_generate: m.seconds_generate,
    seconds_sandbox: m.seconds_sandbox,
    seconds_train: m.seconds_train,
    reward_mean: m.reward_mean,
  })),
);
let reloaded = {};
if (values.reload) {
  const again = performance.now();
  await page.reload();
  await waitForIdle(page);
  const readyAgain = performance.now();
  await page.click('[data-testid=train]');
  await waitForStep(page, 1);
  reloaded = {
    page_ready_after_reload_s: (readyAgain - again) / 1000,
    first_trained_step_after_reload_s: (performance.now() - again) / 1000,
  };
}
await browser.close();
await server.close();
process.stdout.write(
  `${JSON.stringify(
    {
      page_ready_s: (ready - opened) / 1000,
      first_trained_step_after_open_s: (firstStep - opened) / 1000,
      ...reloaded,
      seconds_per_step: (done - firstStep) / 1000 / Math.max(steps - 1, 1),
      main_thread_longest_task_ms: longTasks.length ? Math.max(...longTasks) : 0,
      main_thread_long_tasks_over_50ms: longTasks.length,
      steps: perStep,
    },
    null,
    2,
  )}\n`,
);
process.exit(0);
