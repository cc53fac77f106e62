// How faithfully a model copies a function task's prompt into its first program: the signature
// (`def name(params)` exactly as the prompt writes it between backticks) and the call the prompt
// asks to print. Held-out pass@1 of a small model sits near 0 for long; these two shares show
// whether the copying it fails on is improving (inspect.ts prints them).
import type { ChatMessage } from '../../src/tokenizer/chat_template.ts';

/** The signature a prompt gives between backticks, and the call it asks to print. */
export function promptParts(prompt: string): { signature: string; call: string } | null {
  const signature = /`(\w+\([^`)]*\))`/.exec(prompt)?.[1];
  const call = /[Pp]rint (?:the result of )?(.+?)(?: at the end)?\.\s*$/.exec(prompt)?.[1];
  return signature && call ? { signature, call } : null;
}

/** Shares of function-task episodes whose first program has the exact signature and call. */
export interface CopyShares {
  /** Episodes whose prompt names a signature and a call (the others are not counted). */
  episodes: number;
  signature: number;
  call: number;
}

/** Scores episodes, each given as its messages (system, user prompt, assistant, ...). */
export function copyShares(episodes: readonly (readonly ChatMessage[])[]): CopyShares {
  let counted = 0;
  let signature = 0;
  let call = 0;
  for (const messages of episodes) {
    const prompt = messages.find((m) => m.role === 'user')?.content ?? '';
    const parts = promptParts(prompt);
    if (!parts) continue;
    counted++;
    const first = messages.find((m) => m.role === 'assistant')?.content ?? '';
    if (first.includes(`def ${parts.signature}:`)) signature++;
    if (first.includes(parts.call)) call++;
  }
  const share = (x: number) => (counted === 0 ? 0 : x / counted);
  return { episodes: counted, signature: share(signature), call: share(call) };
}
