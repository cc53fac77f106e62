// Turns how a run ended (sandbox.ts) into the ExecResult the learner and the reward code read.
import type { SandboxOutcome } from './sandbox.ts';
import type { ExecResult } from './types.ts';

/** The observation of a run that hit its deadline, as in the reference design. */
export const TIMEOUT_OBSERVATION = 'TIMEOUT';

/** Builds the ExecResult for one outcome; `timeoutMs` only words the timeout error. */
export function toExecResult(outcome: SandboxOutcome, timeoutMs: number): ExecResult {
  const durationMs = Math.round(outcome.durationMs * 100) / 100;
  switch (outcome.kind) {
    case 'done': {
      const { raw } = outcome;
      return {
        observation: raw.combined,
        stdout: raw.stdout,
        stderr: raw.stderr,
        ok: raw.ok,
        error: raw.error,
        timedOut: false,
        terminated: raw.fatal,
        durationMs,
        truncated: raw.truncated,
      };
    }
    case 'interrupted':
    case 'terminated': {
      const raw = outcome.kind === 'interrupted' ? outcome.raw : null;
      return {
        observation: TIMEOUT_OBSERVATION,
        stdout: raw?.stdout ?? '',
        stderr: raw?.stderr ?? '',
        ok: false,
        error: { type: 'TimeoutError', message: `the program ran past its ${timeoutMs} ms limit` },
        timedOut: true,
        terminated: outcome.kind === 'terminated',
        durationMs,
        truncated: raw?.truncated ?? false,
      };
    }
    case 'crashed': {
      const line = `SandboxCrash: the sandbox worker died and was replaced (${outcome.reason})`;
      return {
        observation: line,
        stdout: '',
        stderr: line,
        ok: false,
        error: { type: 'SandboxCrash', message: outcome.reason },
        timedOut: false,
        terminated: true,
        durationMs,
        truncated: false,
      };
    }
  }
}
