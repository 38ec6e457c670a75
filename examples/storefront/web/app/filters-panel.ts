// On a phone the filters are a panel over the page, opened by the "Filters" button, so that the first screen shows
// the search and the cards; on a wider screen they are a sidebar and the button is not shown (style.css). While
// the panel is open the page behind it is inert (neither tabbed to nor read out), Escape or "Show packages" closes
// it, and the focus goes back to the button.
import { counted } from './format.js';

/** Where the panel takes over from the sidebar: style.css's breakpoint. */
const PHONE = matchMedia('(max-width: 43.75rem)');

const panel = document.getElementById('facets') as HTMLElement;
const openButton = document.getElementById('filters-open') as HTMLButtonElement;
const doneButton = document.getElementById('filters-done') as HTMLButtonElement;
/** What the open panel covers. */
const behind = ['.skip', 'header.site', '.results'].map((selector) => document.querySelector(selector) as HTMLElement);

function setOpen(open: boolean, moveFocus = true): void {
  const wasOpen = panel.classList.contains('open');
  panel.classList.toggle('open', open);
  document.documentElement.classList.toggle('panel-open', open);
  openButton.setAttribute('aria-expanded', String(open));
  for (const element of behind) element.inert = open;
  if (!moveFocus) return;
  if (open) doneButton.focus();
  else if (wasOpen) openButton.focus();
}

openButton.addEventListener('click', () => setOpen(true));
doneButton.addEventListener('click', () => setOpen(false));
panel.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && panel.classList.contains('open')) setOpen(false);
});
// Turned to a wide screen, the panel is the sidebar again: nothing is left inert.
PHONE.addEventListener('change', () => {
  if (!PHONE.matches) setOpen(false, false);
});

/** The panel's closing button says how many packages the filters give. */
export function showMatching(total: number): void {
  doneButton.textContent = total === 0 ? 'No package matches' : `Show ${counted(total, 'package')}`;
}
