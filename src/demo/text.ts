// Text banks for descriptions, FAQs, policies and messages. HTML banks hold markup and entities; {placeholders}
// are filled with escaped values.

import { fill } from './format.js';
import type { Rng } from './random.js';

const DESCRIPTION_OPENERS = [
  'Capture the glow of <strong>golden hour</strong> with a relaxed, guided {session} in {place}.',
  'A laid-back {session} for people who "hate being photographed" &amp; still want photos that feel like them.',
  "Whether it's your first shoot or your fiftieth, your {noun} is about real moments, not stiff poses.",
  'Based in {place}, {company} has photographed hundreds of couples, families &amp; brands.',
  'Think natural light, gentle prompts and plenty of time to settle in &mdash; no awkward "say cheese" moments.',
  'Your {noun}, told honestly: the nerves, the laughter &amp; the quiet in-between moments.',
] as const;

const DESCRIPTION_DETAILS = [
  "We'll meet at a location of your choice within 30&nbsp;km of {place}; travel beyond that is quoted separately.",
  'Sessions can be held indoors or outdoors, rain or shine.',
  'Bring outfit changes, favourite props &amp; even the dog &ndash; pets are welcome!',
  'Your private online gallery arrives ready to download, share &amp; print.',
  'I send a short style guide after booking so you know exactly what to wear.',
  'Prefer film? Ask about adding a roll of <em>Portra 400</em> to your {noun}.',
  'All editing is done by hand &mdash; no presets slapped on in bulk.',
] as const;

const HIGHLIGHTS = [
  'Guided posing for every comfort level',
  'Location scouting &amp; timeline planning',
  'Colour <strong>and</strong> black &amp; white edits',
  'Sneak peeks within 48 hours',
  'Print release included',
  'Easy online booking &amp; rescheduling',
] as const;

const INCLUDED_EXTRAS = [
  'Private online gallery for 12 months',
  'Print release &amp; personal-use license',
  'Pre-session planning call',
  'Sneak peeks within 48 hours',
  'Location scouting',
  'Heirloom album (10&times;10")',
  'Second shooter',
  'Travel within 30&nbsp;km',
] as const;

const EXPECT_BEFORE = [
  "After booking you'll get a welcome guide and a short questionnaire about your plans.",
  "We'll hop on a call two weeks before to plan the timeline &amp; locations.",
  'I send outfit ideas and a Pinterest board so we share the same "vibe".',
] as const;

const EXPECT_DURING = [
  "I'll guide you through natural prompts; there's no need to know how to pose.",
  'We take it slow, with breaks for water, touch-ups &amp; a few laughs.',
  'Expect to walk a bit &mdash; comfortable shoes for the in-between parts are a good idea.',
] as const;

export const BIO_TEMPLATES = [
  "<p>Hi, I'm <strong>{first}</strong>! I've been photographing {category} in {place} for over {years} years.</p><p>I believe in honest, unposed images &amp; a relaxed day.</p>",
  '<p>{company} is a small studio run by {first}. Our {category} work has been featured in "Local Weddings" &amp; <em>Style Me Pretty</em>.</p>',
  '<p>{category} is where I started. Light, texture &amp; real connection are what I look for.</p><ul><li>Based in {place}</li><li>Available to travel</li></ul>',
] as const;

export const FAQ_BANK = [
  ['Do you travel?', 'Yes! Travel within 30 km is included; further afield is quoted separately.'],
  [
    'How long until we get our photos?',
    'Sneak peeks arrive within 48 hours and the full gallery follows within the delivery time.',
  ],
  [
    'Can we add more time on the day?',
    'Of course, extra time is billed in 30-minute blocks & added to your final invoice.',
  ],
  ['What happens if it rains?', 'We reschedule free of charge or embrace the weather with umbrellas — your call.'],
  ['Do you provide the RAW files?', 'No, only the edited images are delivered. RAW files are kept for 12 months.'],
  ['Can we bring our dog?', 'Absolutely, pets are more than welcome 🐶'],
] as const;

export const POLICY_LINES = {
  cancellation: [
    'Cancellations made 30 or more days before the session receive a full refund of the deposit.',
    'Cancellations within 30 days of the session forfeit the deposit.',
    'One free reschedule is included, subject to availability.',
    'No-shows are charged the full package price.',
  ],
  extension: [
    'Coverage can be extended on the day in 30-minute increments.',
    'Extensions are billed at the hourly rate & added to the final invoice.',
    "Extensions depend on the photographer's availability after your booking.",
  ],
  weather: [
    'Outdoor sessions may be moved if rain or high winds are forecast.',
    'The photographer makes the weather call 24 hours before the session.',
    'Weather reschedules are always free of charge.',
  ],
  license: [
    'You receive a personal-use license for all delivered images.',
    'Commercial use requires a separate license agreement.',
    'The photographer may use selected images for portfolio & marketing unless you opt out in writing.',
  ],
  paymentSchedule: [
    'The deposit is due at booking to reserve your date.',
    'The remaining balance is due 14 days before the session.',
    'Payments can be split into three monthly instalments on request.',
  ],
  addOns: [
    'Add-ons can be purchased up to 7 days before the session.',
    'Printed products ship within 3–4 weeks after the gallery is delivered.',
    'Add-ons are non-refundable once ordered.',
  ],
} as const;

export const IMAGE_TITLES = [
  'First look by the lake',
  'Bride & groom at golden hour',
  '"Just married" sign',
  'Family walk through the park',
  'Newborn details',
  'Kraków old town at dusk',
  'Confetti exit',
  'IMG_4821.jpg',
  'DSC_0457',
  'Portrait in the studio',
] as const;

export const PLACEHOLDER_MESSAGES = [
  'Booking for next season opens soon!',
  'Limited dates left this autumn 🍂',
  'Message me for a custom quote.',
  'Currently booking 2025 & 2026 dates.',
] as const;

// ---------------------------------------------------------------------------------------------------------------
// HTML texts

interface TextValues extends Record<string, string> {
  session: string;
  noun: string;
  place: string;
  company: string;
}

export function makeDescription(rng: Rng, values: TextValues, lineSeparator: boolean, emoji: boolean): string {
  const opener = fill(rng.pick(DESCRIPTION_OPENERS), values, true);
  const details = rng.some(DESCRIPTION_DETAILS, 1, 3).map((d) => fill(d, values, true));
  // A pasted line separator (U+2028) inside a paragraph, as rich-text editors leave them.
  const second = details.join(lineSeparator ? '\u2028' : ' ');
  let html = `<p>${opener}${emoji ? ' 📸' : ''}</p><p>${second}</p>`;
  if (rng.chance(0.4))
    html += `<ul>${rng
      .some(HIGHLIGHTS, 2, 4)
      .map((h) => `<li>${h}</li>`)
      .join('')}</ul>`;
  return html;
}

export function makeWhatsIncluded(
  rng: Rng,
  quarters: number | null,
  photos: { min: number | null; max: number | null },
) {
  const items: string[] = [];
  if (quarters !== null) items.push(`<strong>${quarters / 4} hour${quarters === 4 ? '' : 's'}</strong> of coverage`);
  if (photos.min !== null && photos.max !== null)
    items.push(`${photos.min}&ndash;${photos.max} edited, high-resolution images`);
  else if (photos.max !== null) items.push(`Up to ${photos.max} edited images`);
  items.push(...rng.some(INCLUDED_EXTRAS, 1, 4));
  const intro = rng.chance(0.3) ? '<p>Everything you need, nothing you don&#39;t:</p>' : '';
  return `${intro}<ul>${items.map((item) => `<li>${item}</li>`).join('')}</ul>`;
}

export function makeWhatToExpect(rng: Rng, days: number | null): string {
  const after = days === null ? 'Your gallery follows soon after.' : `Your gallery arrives within ${days} days.`;
  return [
    `<p><strong>Before:</strong> ${rng.pick(EXPECT_BEFORE)}</p>`,
    `<p><strong>On the day:</strong> ${rng.pick(EXPECT_DURING)}</p>`,
    `<p><strong>After:</strong> ${after}</p>`,
  ].join('');
}
