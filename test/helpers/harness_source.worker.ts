// A thread that posts the sandbox harness as plain Node reads it (through tsx, from disk), for
// test/env/harness_source.test.ts to compare with the text Vite inlines.
import { parentPort } from 'node:worker_threads';
import { harnessSource } from '../../src/env/harness_source.ts';

parentPort!.postMessage(harnessSource());
