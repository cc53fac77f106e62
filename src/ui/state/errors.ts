// Errors a person can act on: every failure the page shows is sorted into a kind with a plain
// title and a fix (hub unreachable or blocked, out of memory, sandbox trouble, storage full, a bad
// run link, a worker that died). Messages from our own code already end with "Fix: …"; those are
// kept as they are, and the kind's generic advice is used only when there is none. Pure: no DOM.

/** What went wrong, for the error area. */
export interface UiError {
  kind: 'network' | 'memory' | 'sandbox' | 'storage' | 'model' | 'config' | 'worker' | 'other';
  title: string;
  /** The original message (without its "Fix:" part). */
  message: string;
  /** What to do. */
  fix: string;
  /** What the page was doing, e.g. "loading the model". */
  during: string;
}

const KINDS: readonly { kind: UiError['kind']; test: RegExp; title: string; fix: string }[] = [
  {
    kind: 'storage',
    test: /quota|storage is full|QuotaExceeded/i,
    title: 'Browser storage is full',
    fix: "Export the adapter and metrics, then delete old checkpoints or clear this site's data in the browser settings.",
  },
  {
    kind: 'memory',
    test: /cannot even load here|too large for this/i,
    title: 'This model is too large for this device',
    fix: 'Choose a smaller model (SmolLM2-135M-Instruct or the demo model), or lower group size, turns and tokens per turn.',
  },
  {
    kind: 'memory',
    test: /out of memory|\bOOM\b|failed to allocate|allocation failed|cannot enlarge memory|memory access out of bounds|device (was )?lost/i,
    title: 'Out of memory',
    fix: 'Choose a smaller model, or lower group size, turns or tokens per turn; on a GPU, try the WASM backend.',
  },
  {
    kind: 'network',
    test: /cannot reach the hub|failed to fetch|networkerror|CORS|blocked by|load failed|ERR_/i,
    title: 'Cannot reach the model hub',
    fix: 'Check the connection and the hub address; or download the model files and pick the folder instead.',
  },
  {
    kind: 'model',
    test: /unsupported model|not a hub model id|not found on|gated or private|not among the picked files|config\.json|safetensors|tokenizer/i,
    title: 'This model cannot be loaded',
    fix: 'Use a Llama, Qwen2 or Qwen3 model with safetensors weights (e.g. a preset), or the demo model.',
  },
  {
    kind: 'sandbox',
    test: /sandbox|pyodide|python/i,
    title: 'The Python sandbox failed',
    fix: 'Reload the page to restart the sandbox. If it keeps failing, the browser may block WebAssembly or workers here.',
  },
  {
    kind: 'worker',
    test: /worker|terminated|DataCloneError|could not be cloned/i,
    title: 'The trainer stopped',
    fix: 'Reload the page; the last checkpoint will be offered for resuming.',
  },
  {
    kind: 'config',
    test: /run config|must be|unknown field|link|no room to answer/i,
    title: 'The configuration has a problem',
    fix: 'Correct the highlighted field, or press Reset to defaults.',
  },
];

/**
 * Capitalizes a message that starts with a plain word (not an id like "owner/name" or a file name).
 */
export function sentence(message: string): string {
  return /^[a-z]+[ ,:]/.test(message)
    ? message.charAt(0).toUpperCase() + message.slice(1)
    : message;
}

/** The message of anything thrown (Errors from the worker arrive as Errors through comlink). */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error)
    return String((error as { message: unknown }).message);
  return String(error);
}

/** Sorts an error into a kind with a title and a fix. `during` says what the page was doing. */
export function explainError(error: unknown, during: string): UiError {
  const full = errorMessage(error);
  const name = (error as { name?: unknown } | null)?.name;
  const text = `${typeof name === 'string' ? name : ''} ${full}`;
  const match = KINDS.find((k) => k.test.test(text));
  // The last "Fix:" is the advice for the whole message (a list of problems may carry its own).
  const fixAt = full.lastIndexOf('Fix:');
  const message = fixAt >= 0 ? full.slice(0, fixAt).trim() : full.trim();
  const ownFix =
    fixAt >= 0
      ? full
          .slice(fixAt)
          .replace(/^Fix:\s*/, '')
          .trim()
      : '';
  return {
    kind: match?.kind ?? 'other',
    title: match?.title ?? 'Something went wrong',
    message: message || 'unknown error',
    fix:
      ownFix ||
      match?.fix ||
      'Try again; if it keeps happening, reload the page (your last checkpoint will be offered).',
    during,
  };
}
