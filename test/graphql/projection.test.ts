// Every statement that reads packages reads the package fields its selection needs and no others. Each door to the
// packages (the unfiltered, filtered and sorted pages, packagesConnection, Photographer.packages, package(id),
// package(urlSlug), federation's `_entities` and the v2 listing) is asked for a slim, a card, a derived and a
// full selection; what each statement returns is read from its SQL text (the names of its select list).
//
// The statements are enumerated from the store, not listed here: the store each request makes is wrapped so that
// every statement it runs is known with the store function that ran it. A store function is either a package
// reader (its statements are checked against the selection) or declared to read no package; a function the store
// gains is neither until this file says which, and a package reader no door reaches fails the run, so a new
// statement is never left unchecked. The statements the database saw that read packages must all be the store's.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.js';
import { DEFAULT_LIMITS } from '../../src/config.js';
import { scalarFields } from '../../src/db/columns.js';
import type { ReadSession, SqlStatement } from '../../src/db/sql.js';
import { createMatchSets } from '../../src/listing/matches.js';
import { createStore, lastSeenListing, type Store } from '../../src/listing/store.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { graphql, PRIVATE_KEY, TEST_KEYS } from '../helpers/graphql.js';
import { readsPackages, returnedNames } from '../helpers/select-list.js';

/** What the stores ran: each statement with the store function that ran it, and the functions called. */
const probe = vi.hoisted(() => ({
  ran: [] as { method: string; text: string }[],
  called: new Set<string>(),
  methods: new Set<string>(),
}));

vi.mock(import('../../src/listing/store.js'), async (importOriginal) => {
  const original = await importOriginal();
  return {
    ...original,
    createStore(sql, matchSets, lastSeen) {
      // A store function runs its statement before its first await (checked: a statement run by no store
      // function is reported as such), so the function under way when a statement starts is the one that ran it.
      let current = '(no store function)';
      const record =
        (run: (statement: SqlStatement, params?: readonly unknown[]) => Promise<unknown>) =>
        (statement: SqlStatement, params?: readonly unknown[]) => {
          probe.ran.push({ method: current, text: statement.text });
          return run(statement, params);
        };
      const session = new Proxy(sql, {
        get(target, property) {
          const value = Reflect.get(target, property, target);
          if (property === 'query' || property === 'withListing') return record(value.bind(target));
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }) as ReadSession;
      const store = original.createStore(session, matchSets, lastSeen);
      const wrapped = Object.entries(store).map(([name, fn]) => {
        probe.methods.add(name);
        const call = (...args: unknown[]) => {
          probe.called.add(name);
          const outer = current;
          current = name;
          try {
            return (fn as (...a: unknown[]) => unknown)(...args);
          } finally {
            current = outer;
          }
        };
        return [name, call];
      });
      return Object.fromEntries(wrapped) as Store;
    },
  };
});

/** What a photographer's read returns: its columns and its embedded profile. */
const PHOTOGRAPHER_PROFILE = [
  ...scalarFields('Photographer').map((field) => field.name),
  'review',
  'socials',
  'coverImages',
  'calendarWorkDays',
];
/**
 * The store functions whose statements read packages, and what those return beside the package fields asked for;
 * `returns`: what the statement returns whatever is asked (the package only keys or filters it).
 */
const READERS: Record<string, { beside: string[] } | { returns: string[] }> = {
  // Beside the fields asked for: the photographer's id, which the answer's surrogate keys name.
  packagesAtPositions: { beside: ['listingPosition', 'photographerId'] },
  packagesByPosition: { beside: ['listingPosition', 'photographerId'] },
  listedPackages: { beside: ['photographerId'] },
  listedPackageBySlug: { beside: ['photographerId'] },
  packagesSorted: { beside: ['photographerId'] },
  matchingPositions: { returns: ['positions'] },
  photographerPositions: { returns: ['photographerId', 'position'] },
  // The package table only in its WHERE (a photographer with a listed package): a photographer's profile.
  listedPhotographers: { returns: PHOTOGRAPHER_PROFILE },
};
/** The store functions that read no package (a statement of theirs that does fails the run). */
const NOT_READERS = [
  'listing',
  // The listing summary, made at import (src/db/write/listing-summary.ts).
  'categories',
  'facetColumns',
  'view',
  'keptPositions',
  'filterReadAs',
  'photographers',
  'packageImages',
  'priorityTags',
  'simplePortfolio',
  'linkedAddOns',
];

/** A session that runs nothing: every read answers no rows. */
function silentSession(): ReadSession {
  // Asserted: the session's interface grows (and the store reads only these).
  return {
    query: async () => [],
    withListing: async () => ({ rows: [], listing: { version: '0', count: 0 } }),
    knownListing: () => undefined,
    readVersion: () => undefined,
    moved: false,
    lost: false,
    end: async () => {},
  } as ReadSession;
}

let db: TestDatabase;
let app: ReturnType<typeof createApp>;
interface Listed {
  id: string;
  urlSlug: string;
  photographer: { id: string };
  location: { latitude: string; longitude: string };
}
let first: Listed;
let second: Listed;

beforeAll(async () => {
  db = await createListingTestDatabase(20);
  // A depth limit of 9, what the deepest door needs: every field under a photographer's packages' edges (the
  // default, 15, admits it too).
  app = createApp({
    db,
    settings: { apiKeys: TEST_KEYS, responseCacheBytes: 0, limits: { ...DEFAULT_LIMITS, depth: 9 } },
  });
  const { body } = await graphql(
    app,
    '{ packages(limit: 2, seed: 1) { results { id urlSlug photographer { id } location { latitude longitude } } } }',
  );
  [first, second] = (body.data as { packages: { results: Listed[] } }).packages.results as [Listed, Listed];
});
afterAll(() => db?.destroy());

const FULL_PACKAGE = readFileSync(new URL('./documents/generated/full-package.graphql', import.meta.url), 'utf8');

const SLIM = ['id', 'title', 'price'];
/** Each selection with the package model fields it needs (the id is always read). */
const SELECTIONS: Record<string, { selection: string; fields: string[] }> = {
  slim: { selection: '{ id title price }', fields: SLIM },
  cards: {
    selection: '{ id title urlSlug price landscapeImage }',
    fields: ['id', 'title', 'urlSlug', 'price', 'landscapeImage'],
  },
  // Fields with resolvers of their own: what their `reads` say (the lists come prepared with the row).
  derived: {
    selection: '{ title location { name } images { id } }',
    fields: ['id', 'title', 'latitude', 'longitude', 'locationName', 'lists'],
  },
  // Every field: the photographer's too, which comes as its prepared text (src/graphql/prepared-photographers.ts).
  full: {
    selection: '{ ...FullPackage }',
    fields: [
      ...scalarFields('Package').map((field) => field.name),
      'lists',
      'photographerText',
      'photographerParts',
      'photographerHoles',
      // Its prices' currency (Money), from its photographer's row.
      'currencyCode',
      'currencySymbol',
    ],
  },
};

interface Door {
  query: (selection: string) => string;
  variables?: () => Record<string, unknown>;
  /** Package fields the door reads whatever is selected. */
  alsoReads?: string[];
}

const near = () =>
  `near: { latitude: "${Number(first.location.latitude).toFixed(4)}", longitude: "${Number(first.location.longitude).toFixed(4)}", radiusKm: 500 }`;

const DOORS: Record<string, Door> = {
  'packages(...)': { query: (s) => `{ packages(limit: 5, seed: 3) { results ${s} } }` },
  'packages(filter)': {
    query: (s) => `{ packages(limit: 5, seed: 3, filter: { currency: "EUR", priceMin: "1" }) { count results ${s} } }`,
  },
  'packages(sort: PRICE_ASC)': { query: (s) => `{ packages(limit: 5, sort: PRICE_ASC) { results ${s} } }` },
  'packages(filter, sort: NEWEST)': {
    query: (s) => `{ packages(limit: 5, sort: NEWEST, filter: { featured: false }) { results ${s} } }`,
  },
  // A filter by distance reads the coordinates for Package.distanceKm, selected or not (see the report).
  'packages(filter near, sort: DISTANCE)': {
    query: (s) => `{ packages(limit: 5, sort: DISTANCE, filter: { ${near()} }) { results ${s} } }`,
    alsoReads: ['latitude', 'longitude'],
  },
  'packages(filter near)': {
    query: (s) => `{ packages(limit: 5, seed: 2, filter: { ${near()} }) { results ${s} } }`,
    alsoReads: ['latitude', 'longitude'],
  },
  'packagesConnection(...)': { query: (s) => `{ packagesConnection(first: 5, seed: 3) { edges { node ${s} } } }` },
  'packagesConnection(filter, sort: PRICE_DESC)': {
    query: (s) =>
      `{ packagesConnection(first: 5, sort: PRICE_DESC, filter: { currency: "EUR", priceMax: "100000" }) { totalCount edges { node ${s} } } }`,
  },
  'Photographer.packages': {
    query: (s) => `{ photographer(id: "${first.photographer.id}") { packages(first: 5) { edges { node ${s} } } } }`,
  },
  'package(id)': { query: (s) => `{ package(id: "${first.id}") ${s} }` },
  'package(urlSlug)': { query: (s) => `{ package(urlSlug: "${first.urlSlug}") ${s} }` },
  _entities: {
    query: (s) =>
      `query($r: [_Any!]!) { _entities(representations: $r) { ... on Package ${s} ... on Photographer { id } } }`,
    variables: () => ({
      r: [
        { __typename: 'Package', id: first.id },
        { __typename: 'Package', id: second.id },
        { __typename: 'Photographer', id: first.photographer.id },
      ],
    }),
  },
};

interface Run {
  /** The package-reading statements the stores ran, with their store functions. */
  reads: { method: string; text: string }[];
  errors: unknown;
  /** Statements the database saw that read packages and that no store function ran. */
  strays: string[];
}

/** Runs a request, and returns what it read. Requests run one at a time (the probe is shared). */
async function observe(request: () => Promise<{ errors?: unknown }>): Promise<Run> {
  const mark = probe.ran.length;
  const { result, statements } = await db.statements.record(request);
  const ran = probe.ran.slice(mark);
  const texts = new Set(ran.map((statement) => statement.text));
  return {
    reads: ran.filter((statement) => readsPackages(statement.text)),
    errors: result.errors,
    strays: statements.filter((sql) => readsPackages(sql) && !texts.has(sql)),
  };
}

const runs = new Map<string, Promise<Run>>();
/** Each case runs once (the coverage test needs them all, whichever ran before). */
function runCase(door: string, selectionName: string): Promise<Run> {
  const key = `${door}|${selectionName}`;
  let run = runs.get(key);
  if (!run) {
    const { query, variables } = DOORS[door] as Door;
    const { selection } = SELECTIONS[selectionName] as { selection: string };
    const document = selectionName === 'full' ? `${query(selection)}\n${FULL_PACKAGE}` : query(selection);
    run = observe(async () => (await graphql(app, document, variables?.() ?? {}, { key: PRIVATE_KEY })).body);
    runs.set(key, run);
  }
  return run;
}

/** What a statement of a package reader may return, for these package fields asked for. */
function allowed(method: string, fields: string[]): string[] | undefined {
  const reader = READERS[method];
  if (!reader) return undefined;
  return ('returns' in reader ? reader.returns : [...new Set([...fields, ...reader.beside])]).sort();
}

/** Fails unless every statement is a package reader's and returns just what it may. */
function expectOnlyAsked(run: Run, fields: string[]) {
  expect(run.errors).toBeUndefined();
  expect(run.strays, 'statements reading packages that no store function ran').toEqual([]);
  for (const { method, text } of run.reads) {
    const may = allowed(method, fields);
    expect(may, `${method} reads packages but is not a package reader here:\n${text}`).toBeDefined();
    expect(returnedNames(text), `${method}:\n${text}`).toEqual(may);
  }
}

describe(`the columns each statement reading packages returns, on ${engineName}`, () => {
  for (const [door, { alsoReads = [] }] of Object.entries(DOORS)) {
    for (const [name, { fields }] of Object.entries(SELECTIONS)) {
      const expected = [...new Set([...fields, ...alsoReads])];
      it(`${door}, ${name}: ${expected.length} package fields`, async () => {
        const run = await runCase(door, name);
        expect(run.reads.filter((read) => 'beside' in (READERS[read.method] ?? {})).length).toBeGreaterThan(0);
        expectOnlyAsked(run, expected);
      });
    }
  }

  it('a count without the page reads positions only', async () => {
    const run = await observe(
      async () =>
        (await graphql(app, '{ packages(filter: { currency: "EUR", priceMin: "2", search: "golden" }) { count } }'))
          .body,
    );
    expect(run.reads.map((read) => read.method)).toEqual(['matchingPositions']);
    expectOnlyAsked(run, []);
  });

  it('two selections of one package by id: a statement each, with its own fields', async () => {
    const run = await observe(
      async () =>
        (
          await graphql(
            app,
            `{ a: package(id: "${first.id}") { title } b: package(id: "${second.id}") { price urlSlug } }`,
          )
        ).body,
    );
    expect(run.errors).toBeUndefined();
    expect(run.reads.map((read) => [read.method, returnedNames(read.text)])).toEqual(
      expect.arrayContaining([
        ['listedPackages', ['id', 'photographerId', 'title']],
        ['listedPackages', ['id', 'photographerId', 'price', 'urlSlug']],
      ]),
    );
    expect(run.reads).toHaveLength(2);
  });

  it('categories and facets read no package: they come from the listing summary', async () => {
    const categories = await observe(() => graphql(app, '{ categories { code } }').then((r) => r.body));
    const facets = await observe(() =>
      graphql(app, '{ packages(limit: 1, filter: { featured: true }) { facets { featured { id } } } }').then(
        (r) => r.body,
      ),
    );
    expect(categories.reads).toEqual([]);
    expect(facets.reads.filter((read) => read.method === 'facetColumns')).toEqual([]);
    expect([...categories.strays, ...facets.strays]).toEqual([]);
  });

  it('the v2 listing reads the ids and the prepared v2 texts', async () => {
    const run = await observe(async () => {
      const response = await app.fetch('http://gateway.test/v2/local-package-list/?limit=3&seed=5');
      expect(response.status).toBe(200);
      await response.text();
      return { errors: undefined };
    });
    expect(run.reads.map((read) => read.method)).toEqual(['packagesAtPositions']);
    expectOnlyAsked(run, ['id', 'v2Record']);
  });

  it('the check sees a column more than was asked, or one read outside the store', async () => {
    const run = await runCase('package(id)', 'slim');
    const [read] = run.reads;
    const widened = (read?.text ?? '').replace(' FROM package p', ', p."description" FROM package p');
    expect(widened).not.toBe(read?.text);
    expect(() => expectOnlyAsked({ ...run, reads: [{ method: 'listedPackages', text: widened }] }, SLIM)).toThrow(
      /listedPackages/,
    );
    expect(() => expectOnlyAsked({ ...run, strays: [widened] }, SLIM)).toThrow(/no store function ran/);
    expect(() => expectOnlyAsked({ ...run, reads: [{ method: 'newReader', text: read?.text ?? '' }] }, SLIM)).toThrow(
      /not a package reader/,
    );
  });

  it('every store function is declared, and every package reader is checked by a door', async () => {
    for (const door of Object.keys(DOORS)) for (const name of Object.keys(SELECTIONS)) await runCase(door, name);
    const declared = new Set([...Object.keys(READERS), ...NOT_READERS]);
    expect(
      [...probe.methods].filter((method) => !declared.has(method)),
      'store functions this file does not say whether they read packages',
    ).toEqual([]);
    // A declared non-reader no door ran (the nested lists come prepared with a package's row) runs here on a
    // session that answers nothing: its statement must not read packages either.
    const idle = NOT_READERS.filter((method) => !probe.called.has(method));
    const mark = probe.ran.length;
    const store = createStore(silentSession(), createMatchSets(1024), lastSeenListing());
    for (const method of idle)
      await (store[method as keyof Store] as (...args: unknown[]) => unknown)([first.id], null);
    const idleReads = probe.ran.slice(mark).filter((statement) => readsPackages(statement.text));
    expect(idleReads, 'declared non-readers that read packages').toEqual([]);
    if (idle.length > 0) expect(probe.ran.length, `${idle.join(', ')} ran no statement`).toBeGreaterThan(mark);

    const checked = new Set<string>();
    for (const run of await Promise.all(runs.values())) for (const read of run.reads) checked.add(read.method);
    expect(
      Object.keys(READERS).filter((method) => !checked.has(method)),
      'package readers no door ran',
    ).toEqual([]);
    expect(
      Object.keys(READERS).filter((method) => !probe.methods.has(method)),
      'package readers the store no longer has',
    ).toEqual([]);
  });
});
