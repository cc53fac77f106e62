// What the page says about the link it was opened with: notices (the run is what the link says,
// e.g. a key given twice) in an info box above the panels, errors (parts it could not restore, and
// mistakes in the lesson options `autostart` and `hide`) in the error area. Either way the page
// opens and loads the run; a link with any error does not start training by itself, even with
// `autostart=1`: it shows what was wrong and waits for Train.
import type { DecodedLink } from '../../run/link.ts';

/** The texts to show (null where there is nothing to say), and whether to start training. */
export interface LinkReport {
  notice: string | null;
  error: string | null;
  /** The error's title. */
  title: string;
  /** Start training once the page has loaded: the link asks for it and has no error. */
  autostart: boolean;
  /**
   * The controls to hide: the link's, but Train stays when the link asked to start and the page
   * waits for Train instead (a lesson that hides Train would leave no way to start).
   */
  hide: DecodedLink['hide'];
}

const bullets = (items: DecodedLink['notices']) =>
  items.map((item) => `• ${item.field}: ${item.reason}`).join('\n');

/** The notice, the error and the autostart decision for a decoded link. */
export function linkReport(
  link: Pick<DecodedLink, 'notices' | 'fallbacks' | 'optionErrors' | 'autostart' | 'hide'>,
): LinkReport {
  const parts: string[] = [];
  if (link.fallbacks.length > 0)
    parts.push(
      `part of this link could not be restored; each of these keeps the value the run starts from:\n${bullets(link.fallbacks)}`,
    );
  if (link.optionErrors.length > 0)
    parts.push(
      `${parts.length > 0 ? 'and its' : 'its'} lesson options have mistakes:\n${bullets(link.optionErrors)}`,
    );
  const mistakes = parts.length > 0;
  // autostart=yes asked to start as much as autostart=1 did
  const asked = link.autostart || link.optionErrors.some((error) => error.field === 'autostart');
  const waits = mistakes && asked;
  if (waits)
    parts.push(
      'Training did not start by itself (the link asks for autostart): check the run below, then press Train.',
    );
  return {
    notice:
      link.notices.length > 0
        ? `This link opened as written; note:\n${bullets(link.notices)}`
        : null,
    error: mistakes
      ? `${parts.join('\n')}\nFix: check the configuration below; Copy link makes a fresh link from what is loaded.`
      : null,
    title:
      link.fallbacks.length > 0
        ? 'This link is damaged or from another version'
        : 'This lesson link has mistakes',
    autostart: link.autostart && !mistakes,
    hide: waits ? link.hide.filter((name) => name !== 'train') : link.hide,
  };
}
