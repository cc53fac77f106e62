// A run link's lesson options (docs/page.md "Lessons"): `autostart=`, `hide=` and `lesson=`, which
// change what the page does with a run, not the run. Read apart from the run's fields (link.ts): a mistake
// here is an option error that names the key, the bad value and what is accepted.

/** A mistake in one option: the key, and why (link.ts's Fallback, by shape). */
interface OptionError {
  field: string;
  reason: string;
}

/**
 * What `hide=` accepts: the `data-control` names of the page's buttons and cards (lesson mode,
 * docs/page.md). The page's Link options offer all but `pipeline` (HIDEABLE in
 * src/ui/panels/storage_panel.ts).
 */
export const HIDE_NAMES = [
  'train',
  'pause',
  'step',
  'phase',
  'reset',
  'config',
  'model',
  'copy-link',
  'charts',
  'viewer',
  'storage',
  'lessons',
  'compare',
  'pipeline',
] as const;
export type HideName = (typeof HIDE_NAMES)[number];
/** What `autostart=` accepts. */
const AUTOSTART_VALUES = ['1', '0'] as const;
/** Most bad names one message lists (a crafted link may hold thousands). */
const MAX_LISTED = 5;

/** Link-only settings that are not part of the run. */
export interface LinkOptions {
  /** Start training as soon as the page has loaded. */
  autostart?: boolean;
  /** Lesson mode: names of controls the page hides. */
  hide?: string[];
}

/** `autostart=`: 1 or 0 (absent: 0). */
export function readAutostart(written: string | null): { value: boolean; error?: OptionError } {
  if (written === null || written === '0') return { value: false };
  if (written === '1') return { value: true };
  return {
    value: false,
    error: {
      field: 'autostart',
      reason: `${quote(written)} is not ${AUTOSTART_VALUES.join(' or ')}. Fix: autostart=1 starts training as soon as the page has loaded; autostart=0 (or none) waits for Train`,
    },
  };
}

/** `hide=`: names from HIDE_NAMES, comma-separated (empty: nothing hidden). */
export function readHide(written: string | null): { names: HideName[]; error?: OptionError } {
  if (written === null || written === '') return { names: [] };
  const names: HideName[] = [];
  const unknown: string[] = [];
  for (const name of written.split(',')) {
    if ((HIDE_NAMES as readonly string[]).includes(name)) {
      if (!names.includes(name as HideName)) names.push(name as HideName);
    } else if (!unknown.includes(name)) unknown.push(name);
  }
  if (unknown.length === 0) return { names };
  const listed = unknown.slice(0, MAX_LISTED).map(quote).join(', ');
  const more = unknown.length > MAX_LISTED ? ` and ${unknown.length - MAX_LISTED} more` : '';
  const kept = names.length > 0 ? `only ${names.join(', ')} hidden` : 'nothing hidden';
  return {
    names,
    error: {
      field: 'hide',
      reason: `unknown name${unknown.length > 1 ? 's' : ''} ${listed}${more} (${kept}). Fix: hide= takes a comma-separated list of ${HIDE_NAMES.join(', ')}`,
    },
  };
}

/**
 * `lesson=`: a lesson's id (src/run/lessons.ts), opened in the Lessons gallery with its runs ready
 * to train (absent: none).
 */
export function readLesson(
  written: string | null,
  known: readonly string[],
): { id: string | null; error?: OptionError } {
  if (written === null) return { id: null };
  if (known.includes(written)) return { id: written };
  return {
    id: null,
    error: {
      field: 'lesson',
      reason: `unknown lesson ${quote(written)}. Fix: lesson= takes one of ${known.join(', ')}`,
    },
  };
}

/** A value as the message quotes it: JSON-quoted, long ones cut. */
function quote(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}
