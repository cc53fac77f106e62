// What the page says about the link it was opened with: notices (the run is what the link says,
// e.g. a key given twice) in an info box above the panels, errors (parts it could not restore) in the
// error area. Either way the page opens and loads the run.
import type { DecodedLink } from '../../run/link.ts';

/** The texts to show; null where there is nothing to say. */
export interface LinkReport {
  notice: string | null;
  error: string | null;
}

const bullets = (items: DecodedLink['notices']) =>
  items.map((item) => `• ${item.field}: ${item.reason}`).join('\n');

/** The notice and the error for a decoded link. */
export function linkReport(link: Pick<DecodedLink, 'notices' | 'fallbacks'>): LinkReport {
  return {
    notice:
      link.notices.length > 0
        ? `This link opened as written; note:\n${bullets(link.notices)}`
        : null,
    error:
      link.fallbacks.length > 0
        ? `part of this link could not be restored; each of these keeps the value the run starts from:\n${bullets(link.fallbacks)}` +
          '\nFix: check the configuration below; Copy link makes a fresh link from what is loaded.'
        : null,
  };
}
