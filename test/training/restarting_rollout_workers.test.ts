// RestartingRolloutWorkers over made-up workers: a job whose worker dies runs again on a new one
// with the last weights, its episodes counted lost; and a test's kill lands on the job it names,
// whatever the timing (the page's and the CLI's restart tests rely on it).
import { describe, expect, it } from 'vitest';
import {
  RESTARTS_PER_JOB,
  RestartingRolloutWorkers,
  type StartedWorker,
  WorkerDied,
} from '../../src/training/restarting_rollout_workers.ts';
import type { RolloutJob, RolloutOutcome } from '../../src/training/rollout_runner.ts';

interface FakeWorker extends StartedWorker {
  id: number;
  loaded: number[];
  jobs: number[];
  finish(step: number): void;
  dead: boolean;
}

/** Workers whose jobs finish when the test says so; kill() ends one as a crash would. */
function fakeWorkers(options: { dieOnEveryJob?: boolean } = {}) {
  const workers: FakeWorker[] = [];
  const start = async (): Promise<StartedWorker> => {
    let die: (error: Error) => void = () => {};
    const death = new Promise<never>((_, reject) => {
      die = reject;
    });
    death.catch(() => {});
    const pending = new Map<number, (outcome: RolloutOutcome) => void>();
    const worker: FakeWorker = {
      id: workers.length,
      loaded: [],
      jobs: [],
      dead: false,
      death,
      finish: (step) => pending.get(step)?.({ step } as unknown as RolloutOutcome),
      calls: {
        load: async (version) => {
          worker.loaded.push(version);
        },
        run: (job) => {
          worker.jobs.push(job.step);
          if (options.dieOnEveryJob) queueMicrotask(() => void worker.kill());
          return new Promise((resolve) => pending.set(job.step, resolve));
        },
        numTensors: async () => 0,
      },
      kill: async () => {
        worker.dead = true;
        die(new WorkerDied('it was terminated'));
      },
      close: async () => {
        worker.dead = true;
      },
    };
    workers.push(worker);
    return worker;
  };
  return { workers, start };
}

const job = (step: number): RolloutJob =>
  ({ step, taskIds: ['a', 'b'], options: { groupSize: 3 } }) as unknown as RolloutJob;

/** Lets the promise chains of RestartingRolloutWorkers run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function workersOver(fake: ReturnType<typeof fakeWorkers>) {
  const lost: number[] = [];
  const warnings: string[] = [];
  const workers = new RestartingRolloutWorkers({
    start: fake.start,
    onLost: (n) => lost.push(n),
    warn: (m) => warnings.push(m),
  });
  return { workers, lost, warnings };
}

describe('RestartingRolloutWorkers', () => {
  it('runs a dead worker’s job again on a new worker that has the last weights', async () => {
    const fake = fakeWorkers();
    const { workers, lost, warnings } = workersOver(fake);
    await workers.load(4, {});
    const outcome = workers.run(job(1));
    await settle();
    await workers.kill();
    await settle();
    expect(fake.workers).toHaveLength(2);
    expect(fake.workers[1]!.loaded).toEqual([4]);
    expect(fake.workers[1]!.jobs).toEqual([1]);
    fake.workers[1]!.finish(1);
    expect(await outcome).toEqual({ step: 1 });
    expect(lost).toEqual([6]);
    expect(warnings).toEqual([
      'rollout worker died while sampling step 1 (it was terminated); restarting it',
    ]);
    expect(workers.starts).toBe(2);
  });

  it('a kill for a later step waits for that step’s job and lands on it, not on the one before', async () => {
    const fake = fakeWorkers();
    const { workers, lost, warnings } = workersOver(fake);
    let landed = false;
    const killed = workers.kill({ whileSampling: 2 }).then(() => {
      landed = true;
    });
    const first = workers.run(job(1));
    await settle();
    fake.workers[0]!.finish(1);
    await first;
    expect(landed).toBe(false);
    expect(fake.workers[0]!.dead).toBe(false);
    const second = workers.run(job(2));
    await killed;
    await settle();
    expect(fake.workers[0]!.dead).toBe(true);
    expect(fake.workers[1]!.jobs).toEqual([2]);
    fake.workers[1]!.finish(2);
    expect(await second).toEqual({ step: 2 });
    expect(lost).toEqual([6]);
    expect(warnings).toEqual([
      expect.stringMatching(/^rollout worker died while sampling step 2 /),
    ]);
  });

  it('a kill for the step being sampled lands at once', async () => {
    const fake = fakeWorkers();
    const { workers, lost } = workersOver(fake);
    const outcome = workers.run(job(3));
    await settle();
    await workers.kill({ whileSampling: 3 });
    await settle();
    expect(fake.workers[0]!.dead).toBe(true);
    fake.workers[1]!.finish(3);
    await outcome;
    expect(lost).toEqual([6]);
  });

  it('refuses a second waiting kill, and closing the run ends a kill that never landed', async () => {
    const { workers } = workersOver(fakeWorkers());
    const waiting = workers.kill({ whileSampling: 5 });
    await expect(workers.kill({ whileSampling: 6 })).rejects.toThrow(
      'a kill is already waiting for step 5',
    );
    await workers.close();
    await expect(waiting).rejects.toThrow('the run closed before the kill could land');
  });

  it(`fails the step after ${RESTARTS_PER_JOB + 1} deaths of one job, saying so`, async () => {
    const { workers, lost } = workersOver(fakeWorkers({ dieOnEveryJob: true }));
    await expect(workers.run(job(7))).rejects.toThrow(
      `the rollout worker died ${RESTARTS_PER_JOB + 1} times while sampling step 7: it was terminated`,
    );
    expect(lost).toHaveLength(RESTARTS_PER_JOB + 1);
  });
});
