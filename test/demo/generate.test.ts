import { describe, expect, it } from 'vitest';
import { DEFAULT_SEED, generatePackages } from '../../src/demo/generate.js';
import type { V2Package } from '../../src/v2/records.js';
import { checkPackageRules, checkRecord, Package } from '../fixtures/v2-contract/fields.mjs';
import { EDGES, identified, imagesOf, missingEdges, owners, photographersOf, runLengths } from './generated-edges.js';

const generate = (count: number, seed?: number): V2Package[] => [...generatePackages({ count, seed })];

const records = generate(2000);

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
