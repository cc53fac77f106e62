// The trainer worker starts its sandbox pool once at page start: init() takes the run's sandbox
// settings, so the configure() that follows with the same settings does not close the pool and
// start another (each start is seconds of Pyodide; the page's default run asks for a 2 s timeout,
// not the 10 s default, and used to start the pool twice). A real change still restarts it.
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/run/config.ts';
import { encodeLink } from '../../src/run/link.ts';
import {
  TrainerService,
  type ClosableExecutor,
  type ServiceDeps,
} from '../../src/service/trainer_service.ts';

function service() {
  const started: { timeoutMs: number; maxOutputChars: number }[] = [];
  let closed = 0;
  const deps: ServiceDeps = {
    selectBackend: async () => ({
      name: 'cpu',
      adapter: null,
      simd: null,
      fma: null,
      threads: null,
      skipped: [],
    }),
    createExecutor: async (options) => {
      started.push({ timeoutMs: options.timeoutMs, maxOutputChars: options.maxOutputChars });
      const executor: ClosableExecutor = {
        execute: async () => {
          throw new Error('not used');
        },
        close: async () => {
          closed++;
        },
      } as unknown as ClosableExecutor;
      return executor;
    },
    sourceFor: () => {
      throw new Error('not used');
    },
  };
  return { trainer: new TrainerService(deps), started, closed: () => closed };
}

describe('TrainerService sandbox starts', () => {
  const config = { ...defaultConfig(), timeoutMs: 2000, maxOutputChars: 300 };

  it("init with the run's sandbox settings, then configure: one pool, started with them", async () => {
    const { trainer, started, closed } = service();
    await trainer.init(
      { backend: 'cpu', sandbox: { timeoutMs: 2000, maxOutputChars: 300 } },
      () => {},
    );
    await trainer.configure(await encodeLink(config), { reload: false });
    expect(started).toEqual([{ timeoutMs: 2000, maxOutputChars: 300 }]);
    expect(closed()).toBe(0);
  });

  it('init without them starts the defaults, and configure restarts the pool for other settings', async () => {
    const { trainer, started, closed } = service();
    await trainer.init({ backend: 'cpu' }, () => {});
    await trainer.configure(await encodeLink(config), { reload: false });
    expect(started).toEqual([
      { timeoutMs: defaultConfig().timeoutMs, maxOutputChars: defaultConfig().maxOutputChars },
      { timeoutMs: 2000, maxOutputChars: 300 },
    ]);
    expect(closed()).toBe(1);
  });
});
