// Texts that tell a person which control to press next (the status line, the step card's empty
// state), naming only the controls this page shows: a lesson link's `hide=` takes some away, and
// "Press Train" beside no Train button leaves a class looking for it. Pure: no DOM.

/** The controls a lesson link hides, by their `data-control` names (`hide=`, docs/page.md). */
export type Hidden = ReadonlySet<string>;

/** "a", "a or b", "a, b or c". */
function either(items: readonly string[]): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** The status once the model has loaded: what to press to start. */
export function readyStatus(hidden: Hidden): string {
  const ways = [
    hidden.has('train') ? null : 'Train to run every step',
    hidden.has('step') ? null : 'Step for one step',
    hidden.has('phase') ? null : 'Next phase for one phase at a time',
  ].filter((w): w is string => w !== null);
  return ways.length > 0 ? `Ready. Press ${either(ways)}.` : 'Ready.';
}

/** The status when the configured steps are done: how to go on, with what the page shows. */
export function finishedStatus(steps: number, hidden: Hidden): string {
  const ways = [
    hidden.has('config') ? null : 'raise Steps to go on',
    hidden.has('reset') ? null : 'press Reset to start over',
  ].filter((w): w is string => w !== null);
  const next = either(ways);
  return `Finished ${steps} steps.${next ? ` ${next.charAt(0).toUpperCase()}${next.slice(1)}.` : ''}`;
}

/** The step card before any phase has run: how to fill it. */
export function firstPhaseHint(hidden: Hidden): string {
  const ways = [
    hidden.has('train') ? null : 'Train to run steps',
    hidden.has('step') ? null : 'Step to run one',
    hidden.has('phase') ? null : 'Next phase to stop after each phase',
  ].filter((w): w is string => w !== null);
  return ways.length > 0
    ? `Press ${either(ways)}; each phase's data shows here.`
    : "Each phase's data shows here as the run goes.";
}
