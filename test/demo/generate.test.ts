import { describe, expect, it } from 'vitest';
import { DEFAULT_SEED, generatePackages } from '../../src/demo/generate.js';
import type { V2Image, V2Package, V2Photographer } from '../../src/v2/records.js';
import {
  checkPackageRules,
  checkRecord,
  type Fields,
  Image,
  Package,
  Photographer,
  Review,
} from '../fixtures/v2-contract/fields.mjs';

const generate = (count: number, seed?: number): V2Package[] => [...generatePackages({ count, seed })];

const records = generate(2000);

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
function photographersOf(packages: readonly V2Package[]): V2Photographer[] {
  const seen = new Map<string, V2Photographer>();
  for (const p of packages)
    if (!seen.has(p.photographer.identifier)) seen.set(p.photographer.identifier, p.photographer);
  return [...seen.values()];
}

function imagesOf(packages: readonly V2Package[]): V2Image[] {
  return [...packages.flatMap((p) => p.images), ...photographersOf(packages).flatMap((ph) => ph.cover_image)];
}

/** Lengths of the runs of consecutive packages with the same photographer. */
function runLengths(packages: readonly V2Package[]): number[] {
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
function owners<T>(
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
function* identified(value: unknown): Generator<{ identifier: string }> {
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

const EDGES: Edge[] = [
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

const missingEdges = (packages: readonly V2Package[]) =>
  EDGES.filter(([, occurs]) => !occurs(packages)).map(([n]) => n);

// ------------------------------------------------------------------------------------------------------------

describe('generatePackages', () => {
  it('yields the requested number of records', () => {
    expect(records).toHaveLength(2000);
    expect(generate(0)).toEqual([]);
    expect(generate(1)).toHaveLength(1);
  });

  it('rejects a count that is not a non-negative integer, and a seed outside 0..2^32-1', () => {
    for (const count of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => generatePackages({ count }).next()).toThrow(RangeError);
    }
    // Larger seeds would wrap around to the same data as smaller ones.
    for (const seed of [-1, 0.5, 2 ** 32]) {
      expect(() => generatePackages({ count: 1, seed }).next()).toThrow(RangeError);
    }
    expect(generate(1, 0)).toHaveLength(1);
    expect(generate(1, 2 ** 32 - 1)).toHaveLength(1);
  });

  it('produces records that pass the contract validators', () => {
    const errors = records.flatMap((p, i) => [
      ...checkRecord(p, Package, `records[${i}]`),
      ...checkPackageRules(p, `records[${i}]`),
    ]);
    expect(errors.slice(0, 20)).toEqual([]);
  });

  it('streams: records come one at a time, without building the whole set first', () => {
    const stream = generatePackages({ count: 1_000_000_000 });
    const first = stream.next();
    expect(first.done).toBe(false);
    expect(JSON.stringify(first.value)).toBe(JSON.stringify(records[0]));
    stream.return(undefined);
  });

  it('is deterministic: the same options give byte-identical records', () => {
    const again = generate(2000);
    expect(again.map((p) => JSON.stringify(p))).toEqual(records.map((p) => JSON.stringify(p)));
    expect(JSON.stringify(generate(50, DEFAULT_SEED))).toBe(JSON.stringify(records.slice(0, 50)));
  });

  it('gives other data for another seed', () => {
    const other = generate(200, 7);
    const ours = new Set(records.slice(0, 200).map((p) => p.identifier));
    expect(other.filter((p) => ours.has(p.identifier))).toEqual([]);
    expect(other.map((p) => p.title).join()).not.toBe(
      records
        .slice(0, 200)
        .map((p) => p.title)
        .join(),
    );
  });

  it('gives the same first records whatever the count', () => {
    for (const count of [1, 7, 333]) {
      expect(JSON.stringify(generate(count))).toBe(JSON.stringify(records.slice(0, count)));
    }
  });

  it('exercises every edge in 2,000 records', () => {
    expect(missingEdges(records)).toEqual([]);
  });

  it.each([DEFAULT_SEED, 1, 2, 42, 987_654_321])('exercises every edge in the first 200 records (seed %i)', (seed) => {
    const packages = seed === DEFAULT_SEED ? records.slice(0, 200) : generate(200, seed);
    expect(missingEdges(packages)).toEqual([]);
  });

  it('checks the edge list itself: covers the nullable and array fields of the contract', () => {
    const names = EDGES.map(([name]) => name);
    for (const f of ['package.hours_of_coverage null', 'photographer.review filled', 'image.filesize_mb null']) {
      expect(names).toContain(f);
    }
    for (const f of ['package.faqs empty', 'photographer.cover_image non-empty', 'photographer.socials empty']) {
      expect(names).toContain(f);
    }
    expect(names).not.toContain('package.weeks_available null');
    expect(names).not.toContain('photographer.calendar_work_days empty');
  });

  it('gives every record with an identifier the same content wherever it appears', () => {
    const seen = new Map<string, string>();
    const conflicts: string[] = [];
    for (const record of identified(records)) {
      const json = JSON.stringify(record);
      const before = seen.get(record.identifier);
      if (before === undefined) seen.set(record.identifier, json);
      else if (before !== json) conflicts.push(record.identifier);
    }
    expect(conflicts).toEqual([]);
    expect(seen.size).toBeGreaterThan(records.length * 5);
  });

  it('puts each photographer on 1 to 8 consecutive packages, embedding the same profile in each', () => {
    const runs = runLengths(records);
    expect(runs.length).toBe(photographersOf(records).length); // no photographer comes back after another
    expect(Math.max(...runs)).toBeLessThanOrEqual(8);
    const profiles = new Map<string, string>();
    for (const p of records) {
      const json = JSON.stringify(p.photographer);
      expect(profiles.get(p.photographer.identifier) ?? json).toBe(json);
      profiles.set(p.photographer.identifier, json);
    }
  });

  it('shares portfolio entries only between packages of the same photographer', () => {
    const byEntry = owners(
      records,
      (p) => p.simple_portfolio,
      (p) => p.photographer.identifier,
    );
    expect([...byEntry.values()].filter((photographers) => photographers.size > 1)).toEqual([]);
  });

  it('has a unique url_slug per package', () => {
    const slugs = records.map((p) => p.url_slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const slug of slugs) expect(slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
  });

  it('keeps tag_keywords in step with priority_tags', () => {
    for (const p of records) {
      expect(p.tag_keywords).toBe(p.priority_tags.map((t) => `${t.tag},`).join(''));
    }
  });

  it('maps each category code to one category name', () => {
    const names = new Map<number, Set<string>>();
    for (const p of records) names.set(p.category, (names.get(p.category) ?? new Set()).add(p.category_name));
    expect([...names.values()].filter((set) => set.size > 1)).toEqual([]);
    expect(names.size).toBeGreaterThanOrEqual(5);
  });

  it('uses the fixed set of social sites', () => {
    const sites = new Map(
      photographersOf(records).flatMap((ph) =>
        ph.socials.map((s) => [s.social_site.name, s.social_site.icon] as const),
      ),
    );
    expect([...sites.keys()].sort()).toEqual(['Facebook', 'Instagram', 'Pinterest', 'TikTok', 'YouTube']);
    for (const icon of sites.values()) expect(icon).toMatch(/^fab fa-[a-z-]+$/);
  });

  it('lists the seven weekdays with their one-letter shortcut', () => {
    for (const ph of photographersOf(records)) {
      for (const day of ph.calendar_work_days) expect(day.shortcut).toBe(day.day[0]);
      const inactive = ph.calendar_work_days.filter((d) => !d.active);
      for (const day of inactive) expect(day.work_times).toBe('[]');
    }
  });

  it('places locations on real coordinates and images on an https CDN', () => {
    for (const p of records) {
      for (const { latitude, longitude } of [p.location, p.photographer.location]) {
        expect(Math.abs(Number(latitude))).toBeLessThanOrEqual(90);
        expect(Math.abs(Number(longitude))).toBeLessThanOrEqual(180);
      }
    }
    for (const image of imagesOf(records)) {
      for (const url of [image.image, image.thumbnail, image.mobile_thumbnail, image.preload]) {
        if (url !== null) expect(url).toMatch(/^https:\/\/cdn\.[a-z0-9.-]+\/.+\.(jpg|webp)$/);
      }
    }
  });

  it('gives faqs items a question and an answer', () => {
    for (const item of records.flatMap((p) => p.faqs)) {
      expect(Object.keys(item as object)).toEqual(['question', 'answer']);
    }
  });
});
