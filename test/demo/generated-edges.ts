// The generated demo data's edges: each a name and a test over a set of packages (test/demo/generate.test.ts holds
// the generator to them), with the helpers that read the packages' nested records.
import type { V2Image, V2Package, V2Photographer } from '../../src/v2/records.js';
import { type Fields, Image, Package, Photographer, Review } from '../fixtures/v2-contract/fields.mjs';

// ------------------------------------------------------------------------------------------------------------
// Helpers

/** Fields the listing only ever holds null in. */
const ALWAYS_NULL = new Set([
  'weeks_available',
  'contract_template',
  'questionnaire_template',
  'mini_sessions',
  'collection_item_id',
]);

/** Fields whose contract type accepts null, except the always-null ones. */
const nullableFields = (fields: Fields) =>
  fields.filter(([name, type]) => type(null, name) === null && !ALWAYS_NULL.has(name)).map(([name]) => name);

/** Fields whose contract type accepts an empty array (calendar_work_days does not: it needs all 7 days). */
const arrayFields = (fields: Fields) => fields.filter(([name, type]) => type([], name) === null).map(([name]) => name);

const POLICIES = [
  'cancellation_policy',
  'extension_policy',
  'weather_policy',
  'license_policy',
  'payment_schedule_policy',
  'add_ons_policy',
] as const;

const field = (record: object, name: string): unknown => (record as Record<string, unknown>)[name];

/** Each distinct photographer once, in order of first appearance. */
export function photographersOf(packages: readonly V2Package[]): V2Photographer[] {
  const seen = new Map<string, V2Photographer>();
  for (const p of packages)
    if (!seen.has(p.photographer.identifier)) seen.set(p.photographer.identifier, p.photographer);
  return [...seen.values()];
}

export function imagesOf(packages: readonly V2Package[]): V2Image[] {
  return [...packages.flatMap((p) => p.images), ...photographersOf(packages).flatMap((ph) => ph.cover_image)];
}

/** Lengths of the runs of consecutive packages with the same photographer. */
export function runLengths(packages: readonly V2Package[]): number[] {
  const runs: number[] = [];
  let previous: string | undefined;
  for (const p of packages) {
    const last = runs.length - 1;
    if (p.photographer.identifier === previous) runs[last] = (runs[last] ?? 0) + 1;
    else runs.push(1);
    previous = p.photographer.identifier;
  }
  return runs;
}

/** Identifiers of `pick(record)` items mapped to the set of `owner` keys they appear under. */
export function owners<T>(
  items: Iterable<T>,
  pick: (item: T) => readonly { identifier: string }[],
  owner: (item: T) => string,
) {
  const byId = new Map<string, Set<string>>();
  for (const item of items) {
    for (const { identifier } of pick(item)) {
      const set = byId.get(identifier) ?? new Set<string>();
      set.add(owner(item));
      byId.set(identifier, set);
    }
  }
  return byId;
}

const sharedByTwo = (byId: Map<string, Set<string>>) => [...byId.values()].some((set) => set.size >= 2);

/** Every object carrying an `identifier`, anywhere in the records. */
export function* identified(value: unknown): Generator<{ identifier: string }> {
  if (Array.isArray(value)) {
    for (const item of value) yield* identified(item);
  } else if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (typeof record.identifier === 'string') yield record as { identifier: string };
    for (const inner of Object.values(record)) yield* identified(inner);
  }
}

const hour = (clockJson: string) => (JSON.parse(clockJson) as { hour: number }).hour;
const NON_ASCII = /[^ -~\s]/; // anything but printable ASCII and white space
const EMOJI = /\p{Extended_Pictographic}/u;

// ------------------------------------------------------------------------------------------------------------
// Edges: each is a name and a test over a set of packages. `missingEdges` names those that do not occur.

type Edge = [name: string, occurs: (packages: readonly V2Package[]) => boolean];

function nullEdges(kind: string, fields: Fields, rows: (packages: readonly V2Package[]) => readonly object[]): Edge[] {
  return nullableFields(fields).flatMap((name): Edge[] => [
    [`${kind}.${name} null`, (ps) => rows(ps).some((r) => field(r, name) === null)],
    [`${kind}.${name} filled`, (ps) => rows(ps).some((r) => field(r, name) !== null)],
  ]);
}

function arrayEdges(kind: string, fields: Fields, rows: (packages: readonly V2Package[]) => readonly object[]): Edge[] {
  return arrayFields(fields).flatMap((name): Edge[] => [
    [`${kind}.${name} empty`, (ps) => rows(ps).some((r) => (field(r, name) as unknown[]).length === 0)],
    [`${kind}.${name} non-empty`, (ps) => rows(ps).some((r) => (field(r, name) as unknown[]).length > 0)],
  ]);
}

const someText = (ps: readonly V2Package[], text: (p: V2Package) => string | null, test: (s: string) => boolean) =>
  ps.some((p) => {
    const value = text(p);
    return value !== null && test(value);
  });

export const EDGES: Edge[] = [
  ...nullEdges('package', Package, (ps) => ps),
  ...nullEdges('photographer', Photographer, photographersOf),
  ...nullEdges('image', Image, imagesOf),
  ...nullEdges('review', Review, (ps) => photographersOf(ps).flatMap((ph) => (ph.review ? [ph.review] : []))),
  ...arrayEdges('package', Package, (ps) => ps),
  ...arrayEdges('photographer', Photographer, photographersOf),
  ...['<p>', '<ul>', '<li>', '<strong>', '&amp;', '"'].map(
    (markup): Edge => [
      `description holds ${markup}`,
      (ps) =>
        someText(
          ps,
          (p) => p.description,
          (s) => s.includes(markup),
        ),
    ],
  ),
  [
    'whats_included is an HTML list',
    (ps) =>
      someText(
        ps,
        (p) => p.whats_included,
        (s) => /<ul><li>.*<\/li><\/ul>/.test(s),
      ),
  ],
  [
    'what_to_expect is HTML',
    (ps) =>
      someText(
        ps,
        (p) => p.what_to_expect,
        (s) => s.includes('<p><strong>'),
      ),
  ],
  ['portfolio bio is HTML', (ps) => ps.some((p) => p.simple_portfolio.some((e) => e.bio.startsWith('<p>')))],
  [
    'policy with \\n line breaks only',
    (ps) => ps.some((p) => POLICIES.some((f) => /[^\r]\n/.test(p[f] ?? '') && !(p[f] ?? '').includes('\r\n'))),
  ],
  ['policy with \\r\\n line breaks', (ps) => ps.some((p) => POLICIES.some((f) => (p[f] ?? '').includes('\r\n')))],
  ['non-ASCII photographer name', (ps) => photographersOf(ps).some((ph) => NON_ASCII.test(ph.name))],
  ['emoji in a name', (ps) => photographersOf(ps).some((ph) => EMOJI.test(ph.name) || EMOJI.test(ph.company_name))],
  [
    'non-ASCII in a package text',
    (ps) =>
      someText(
        ps,
        (p) => p.description,
        (s) => NON_ASCII.test(s),
      ),
  ],
  [
    'emoji in a package text',
    (ps) =>
      someText(
        ps,
        (p) => `${p.title} ${p.description}`,
        (s) => EMOJI.test(s),
      ),
  ],
  ['U+2028 or U+2029 in a text', (ps) => ps.some((p) => /[\u2028\u2029]/.test(JSON.stringify(p)))],
  ['review null', (ps) => photographersOf(ps).some((ph) => ph.review === null)],
  ['review present', (ps) => photographersOf(ps).some((ph) => ph.review !== null)],
  ['end_work_time hour 24', (ps) => photographersOf(ps).some((ph) => hour(ph.end_work_time) === 24)],
  ['end_work_time before 24', (ps) => photographersOf(ps).some((ph) => hour(ph.end_work_time) < 24)],
  ['deposit_fraction only', (ps) => ps.some((p) => p.deposit_fraction !== null && p.payment_schedule === null)],
  ['payment_schedule only', (ps) => ps.some((p) => p.payment_schedule !== null && p.deposit_fraction === null)],
  ['neither deposit_fraction nor payment_schedule', (ps) => ps.some((p) => !p.payment_schedule && !p.deposit_fraction)],
  ['payment_schedule_policy empty', (ps) => ps.some((p) => p.payment_schedule_policy === '')],
  ['payment_schedule_policy null', (ps) => ps.some((p) => p.payment_schedule_policy === null)],
  ['payment_schedule_policy text', (ps) => ps.some((p) => (p.payment_schedule_policy ?? '').length > 0)],
  ['video_url empty', (ps) => ps.some((p) => p.video_url === '')],
  ['video_url set', (ps) => ps.some((p) => p.video_url.startsWith('https://'))],
  ['photographer with one package', (ps) => runLengths(ps).slice(0, -1).includes(1)], // the last run may be cut short
  ['photographer with several packages', (ps) => runLengths(ps).some((n) => n >= 3)],
  ['created_at with microseconds', (ps) => photographersOf(ps).some((ph) => /\.\d{6}Z$/.test(ph.created_at))],
  ['created_at with microseconds 0', (ps) => photographersOf(ps).some((ph) => /:\d\dZ$/.test(ph.created_at))],
  [
    'calendar_work_days in varying orders',
    (ps) => new Set(photographersOf(ps).map((ph) => ph.calendar_work_days.map((d) => d.day).join())).size >= 2,
  ],
  [
    'add-on template shared between packages',
    (ps) =>
      sharedByTwo(
        owners(
          ps,
          (p) => p.linked_add_ons.map((l) => l.package_add_on_template),
          (p) => p.identifier,
        ),
      ),
  ],
  [
    'social site shared between photographers',
    (ps) =>
      sharedByTwo(
        owners(
          photographersOf(ps),
          (ph) => ph.socials.map((s) => s.social_site),
          (ph) => ph.identifier,
        ),
      ),
  ],
  [
    'priority tag shared between packages',
    (ps) =>
      sharedByTwo(
        owners(
          ps,
          (p) => p.priority_tags,
          (p) => p.identifier,
        ),
      ),
  ],
  [
    'portfolio entry shared between packages of a photographer',
    (ps) =>
      sharedByTwo(
        owners(
          ps,
          (p) => p.simple_portfolio,
          (p) => p.identifier,
        ),
      ),
  ],
  ['faq items', (ps) => ps.some((p) => p.faqs.length > 0)],
];

export const missingEdges = (packages: readonly V2Package[]) =>
  EDGES.filter(([, occurs]) => !occurs(packages)).map(([n]) => n);

// ------------------------------------------------------------------------------------------------------------
