// The import validator: it accepts what the v2 contract accepts (its field table, pinned in
// test/fixtures/v2-contract) for generated and edge records, rejects every broken field with its path and what
// was expected, refuses what the database could not give back byte for byte, and checks that repeated copies
// within one source are identical.
import { describe, expect, it } from 'vitest';
import { generatePackages } from '../../src/demo/generate.js';
import { describeProblem, PackageValidator, SourceIndex } from '../../src/import/validate.js';
import type { V2Package } from '../../src/v2/records.js';
import { importEdgePackages } from '../fixtures/import-edge-records.js';
import * as contract from '../fixtures/v2-contract/fields.mjs';

const valid = importEdgePackages[0] as V2Package;

/** A deep copy of the first edge record with one change. */
function mutate(change: (r: V2Package & Record<string, unknown>) => void): unknown {
  const copy = structuredClone(valid) as V2Package & Record<string, unknown>;
  change(copy);
  return copy;
}

function problemsOf(value: unknown): string[] {
  return new PackageValidator(null).validate(value).problems.map((p) => describeProblem(p));
}

function contractErrors(value: unknown): string[] {
  return [...contract.checkRecord(value, contract.Package, 'r'), ...contract.checkPackageRules(value, 'r')];
}

describe('the import validator', () => {
  it('accepts every edge record and 2,000 generated records, as the v2 contract does', () => {
    const validator = new PackageValidator();
    const records = [...importEdgePackages, ...generatePackages({ count: 2000, seed: 3 })];
    for (const record of records) {
      const checked = validator.validate(structuredClone(record));
      expect(
        checked.problems.map((p) => describeProblem(p)),
        record.identifier,
      ).toEqual([]);
      // the contract lists status 1 only (the listing's); the importer takes any integer status
      const errors = contractErrors(record).filter((e) => !e.startsWith('r.status:'));
      expect(errors, record.identifier).toEqual([]);
    }
  });

  // [what, change, expected message (path: expected ...), whether the v2 contract rejects it too]
  const cases: [string, (r: V2Package & Record<string, unknown>) => void, string, boolean][] = [
    [
      'price with one decimal',
      (r) => (r.price = '12.5'),
      'price: expected a string-decimal with 2 decimals, got "12.5"',
      true,
    ],
    [
      'price as a number',
      (r) => ((r as Record<string, unknown>).price = 12.5),
      'price: expected a string-decimal with 2 decimals, got 12.5',
      true,
    ],
    [
      'work times with a leading zero',
      (r) =>
        ((r.photographer.calendar_work_days[2] as { work_times: string }).work_times =
          '[{"start":"0900","end":"1700"}]'),
      'photographer.calendar_work_days[2].work_times: expected JSON text of [{start, end}] HHMM strings',
      true,
    ],
    [
      'an upper-case identifier',
      (r) => (r.identifier = 'ABCDEF00-0000-4000-8000-00000000000A'),
      'identifier: expected a lower-case UUID string',
      false,
    ],
    [
      'negative zero',
      (r) => (r.deposit = '-0.00'),
      'deposit: expected a string-decimal with 2 decimals that is not negative zero',
      false,
    ],
    [
      'leading zeros',
      (r) => (r.deposit = '007.50'),
      'deposit: expected a string-decimal with 2 decimals without leading zeros',
      false,
    ],
    [
      'more digits than the column holds',
      (r) => (r.location.latitude = '1000.000000'),
      'location.latitude: expected a string-decimal with 6 decimals and at most 3 digits before the point (column numeric(9,6))',
      false,
    ],
    [
      'created_at with a zero fraction',
      (r) => (r.photographer.created_at = '2020-01-01T00:00:00.000000Z'),
      'photographer.created_at: expected an ISO 8601 UTC timestamp with six fraction digits (left out when the microseconds are 0)',
      false,
    ],
    [
      'created_at on 30 February',
      (r) => (r.photographer.created_at = '2021-02-30T00:00:00Z'),
      'photographer.created_at: expected an ISO 8601',
      false,
    ],
    ['U+0000 in a text', (r) => (r.title = 'a\u0000b'), 'title: expected text without U+0000', false],
    [
      'a lone surrogate',
      (r) => (r.title = 'a\ud800b'),
      'title: expected well-formed Unicode text (no lone surrogate)',
      false,
    ],
    ['U+0000 inside faqs', (r) => (r.faqs = [{ q: 'a\u0000' }]), 'faqs[0].q: expected text without U+0000', false],
    [
      'a missing key',
      (r) => delete (r as Record<string, unknown>).title,
      'record: expected an object with exactly the spec\'s keys in the spec\'s order, got missing ["title"], extra []',
      true,
    ],
    ['an extra key', (r) => ((r as Record<string, unknown>).extra = 1), 'got missing [], extra ["extra"]', true],
    [
      'keys out of order',
      (r) => {
        const { identifier, ...rest } = r;
        for (const key of Object.keys(r)) delete (r as Record<string, unknown>)[key];
        Object.assign(r, rest, { identifier });
      },
      'record: expected an object with exactly the spec\'s keys in the spec\'s order, got key order differs from the spec at "photographer"',
      true,
    ],
    [
      'dimensions in the other order',
      (r) => ((r.images[0] as { dimensions: unknown }).dimensions = { height: 1, width: 2 }),
      'images[0].dimensions: expected {width, height} (in that order), positive integers',
      false,
    ],
    [
      'an integer beyond the column',
      (r) => (r.category = 2 ** 31),
      'category: expected an integer from -2147483648 to 2147483647',
      false,
    ],
    [
      'a string status',
      (r) => ((r as Record<string, unknown>).status = '1'),
      'status: expected an integer, got "1"',
      true,
    ],
    ['weeks_available not null', (r) => (r.weeks_available = []), 'weeks_available: expected null', true],
    [
      'both deposit fraction and payment schedule',
      (r) => (r.payment_schedule = '0.500000000'),
      'payment_schedule: expected null when deposit_fraction is set (spec 2.2 rule 2), got "0.500000000"',
      true,
    ],
    [
      'a linked add-on twice in one package',
      (r) => r.linked_add_ons.push(structuredClone(r.linked_add_ons[0]) as V2Package['linked_add_ons'][0]),
      'linked_add_ons[2].identifier: expected an identifier not used by another entry of this list',
      false,
    ],
    [
      'six calendar days',
      (r) => r.photographer.calendar_work_days.pop(),
      'photographer.calendar_work_days: expected one entry per weekday',
      true,
    ],
    [
      'a relative image URL',
      (r) => ((r.images[0] as { image: string }).image = '/img/1.jpg'),
      'images[0].image: expected an absolute http(s) URL, got "/img/1.jpg"',
      true,
    ],
    [
      'an e-mail without a domain',
      (r) => (r.photographer_email = 'zoe@'),
      'photographer_email: expected an e-mail address',
      true,
    ],
  ];

  it.each(cases)('rejects %s, naming the path and what was expected', (_what, change, message, contractToo) => {
    const value = mutate(change);
    const problems = problemsOf(value);
    expect(problems.length, problems.join('\n')).toBeGreaterThan(0);
    expect(
      problems.some((p) => p.includes(message)),
      `${problems.join('\n')}\nshould include: ${message}`,
    ).toBe(true);
    if (contractToo) expect(contractErrors(value).length).toBeGreaterThan(0);
  });

  it('writes each problem on one line, with U+2028 escaped and long values cut', () => {
    const [problem] = problemsOf(mutate((r) => (r.price = `\u2028${'9'.repeat(200)}`)));
    expect(problem).toMatch(/^price: expected a string-decimal with 2 decimals, got "\\u20289{78}…$/);
    expect(problemsOf([1])).toEqual(['record: expected a Package record (an object), got [1]']);
  });

  it('takes an identical repeat of a shared record and refuses one with other content, within one source', () => {
    const validator = new PackageValidator(new SourceIndex());
    const [first, second] = [importEdgePackages[0], importEdgePackages[1]].map((r) => structuredClone(r) as V2Package);
    expect(validator.validate(first).problems).toEqual([]);
    expect(validator.validate(second).problems).toEqual([]); // the same photographer and template, same content

    const changed = structuredClone(importEdgePackages[2]) as V2Package;
    changed.photographer.name = 'Someone else';
    const problems = validator.validate(changed).problems.map((p) => describeProblem(p, 'results[2]'));
    expect(problems).toEqual([
      `results[2].photographer: expected the same content as the earlier copy of photographer ${changed.photographer.identifier} in this source (a shared record may not differ within one source), got a copy with other content`,
    ]);
    // a fresh source knows nothing of the first
    expect(new PackageValidator(new SourceIndex()).validate(changed).problems).toEqual([]);
  });

  it('treats an identical repeat of a package as a repeat and refuses one with other content', () => {
    const validator = new PackageValidator(new SourceIndex());
    const record = structuredClone(importEdgePackages[1]) as V2Package;
    expect(validator.validate(record).repeat).toBe(false);
    expect(validator.validate(structuredClone(record))).toMatchObject({ repeat: true, problems: [] });
    const other = structuredClone(record);
    other.title = 'changed';
    const checked = validator.validate(other);
    expect(checked.record).toBeNull();
    expect(describeProblem(checked.problems[0] as never, '[7]')).toMatch(
      /^\[7\]: expected the same content as the earlier copy of package .* in this source/,
    );
  });
});
