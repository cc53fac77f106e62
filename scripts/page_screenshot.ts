// The README's screenshot (docs/page.png): open the built page in headless Chromium, train its run
// to the end (the default run with no link: 30 steps, two minutes or so), and take a full-page
// screenshot, so the picture shows what the page does today.
//   npx vite build && npx tsx scripts/page_screenshot.ts [--link '#v=1&…'] [--out docs/page.png]
// A run link starts from the schema's defaults (the reference design), not from the default run.
import { parseArgs } from 'node:util';
import { launchBrowser, servePage, waitForIdle, waitForStep } from './browser.ts';

const { values } = parseArgs({
  options: {
    link: { type: 'string', default: '' },
    out: { type: 'string', default: 'docs/page.png' },
  },
});
type Playground = { config: { steps: number } };
const server = await servePage(true);
const browser = await launchBrowser();
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}${values.link}`);
  await waitForIdle(page);
  const steps = await page.evaluate(
    () => (window as unknown as { playground: Playground }).playground.config.steps,
  );
  await page.click('[data-testid=train]');
  await waitForStep(page, steps, 3_600_000);
  await waitForIdle(page); // the run's last step done, its checkpoint written
  if (errors.length > 0)
    throw new Error(`the page reported errors while training:\n${errors.join('\n')}`);
  await page.screenshot({ path: values.out, fullPage: true });
  process.stdout.write(`${values.out}: the page after ${steps} steps\n`);
} finally {
  await browser.close();
  await server.close();
}
process.exit(0);
