import type { CallSearch } from 'factorly';
import { html, type Html } from '../html.js';

/**
 * What a search on /history read: the call of that id, or how many of the newest calls (a text
 * search is a bounded scan, not an index every call would pay for), and whether it stopped at a page.
 */
export function searchNote(text: string, found: CallSearch): Html {
  const calls = found.scanned.toLocaleString('en-US');
  const reach =
    found.by === 'id'
      ? `The call with id "${text}".`
      : found.complete
        ? `Searched all ${calls} calls for "${text}" (call id, hash prefix, tool, agent, status, error, params).`
        : found.more
          ? `Showing the newest ${found.entries.length} matches for "${text}"; searched the newest ${calls} calls to find them.`
          : `Searched the newest ${calls} calls for "${text}" (call id, hash prefix, tool, agent, status, error, params); older calls were not searched.`;
  return html`<p id="history-search" class="search-note" role="status">${reach} <a href="/history">Clear the search</a></p>`;
}
