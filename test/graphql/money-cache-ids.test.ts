// Ids a normalized client cache can trust (Apollo's InMemoryCache, urql's Graphcache, Relay): such a cache keeps
// one object per __typename:id and merges every answer's fields into it, so an id must name exactly the data its
// object carries. The schema is walked for every object type with an id, each reviewed here for why its ids are
// unique; then answers to many queries (filters, sorts, facets, every nested record, prices with their currency)
// are put through such a cache, and no object may ever be given two values for one field.
import { isInterfaceType, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { DEFAULT_LIMITS } from '../../src/config.js';
import { schema } from '../../src/graphql/schema.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { graphql } from '../helpers/graphql.js';

/** Every object type with an id, and why its ids are unique and true for its fields. */
const REVIEWED: Record<string, string> = {
  Package: 'the package UUID; its prices carry its currency, a fact of the package (Package.distanceKm aside)',
  Photographer: 'the photographer UUID',
  Image: 'the image UUID: one record, shared by packages and photographers alike',
  PriorityTag: 'the tag UUID: one shared record',
  SimplePortfolio: 'the portfolio entry UUID: one shared record',
  LinkedAddOn: 'the link UUID: one package, one template',
  AddOnTemplate: "the template UUID; its priceMoney is in the linking package's currency, one per photographer",
  Review: 'the review UUID, one per photographer',
  Social: 'the social link UUID',
  SocialSite: 'the social site UUID: one shared record',
  CalendarWorkDay: 'the work day UUID',
  Facet: 'its name and a digest of the rest of the filter its counts hold to',
  FacetValue: 'its facet, its value and a digest of the rest of the filter its count holds to',
};

let db: TestDatabase;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  db = await createListingTestDatabase(150);
  // One wide query for every record a page nests: over the default cost, which is not what this is about.
  const limits = { ...DEFAULT_LIMITS, cost: 1_000_000 };
  app = createApp({ db, settings: { rateLimit: { requests: 0, windowMs: 60_000 }, responseCacheBytes: 0, limits } });
});
afterAll(async () => {
  await app?.dispose();
  await db?.destroy();
});

const MONEY = 'amount currencyCode symbol';
const FACET = `__typename id name label type min max minPrice { ${MONEY} } maxPrice { ${MONEY} }
  values { __typename id value label count input }`;
const QUERY = `query ($offset: Int, $filter: PackageFilter, $sort: PackageSort) {
  packages(limit: 100, offset: $offset, seed: 1, filter: $filter, sort: $sort) { count results {
    __typename id title price priceMoney { ${MONEY} } deposit depositMoney { ${MONEY} }
    images { __typename id image thumbnail }
    priorityTags { __typename id tag priority }
    simplePortfolio { __typename id category }
    linkedAddOns { __typename id packageAddOnTemplate { __typename id name price priceMoney { ${MONEY} } quantity } }
    photographer { __typename id name currencyCode overrideCurrencyCode review { __typename id rating }
      socials { __typename id url socialSite { __typename id name } } coverImages { __typename id image }
      calendarWorkDays { __typename id day active } } }
  facets { category { ${FACET} } price { ${FACET} } currency { ${FACET} } instantBooking { ${FACET} }
    featured { ${FACET} } photographer { ${FACET} } } } }`;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A normalized cache: objects by __typename:id, references in place of nested objects with ids. */
class NormalizedCache {
  readonly objects = new Map<string, Record<string, string>>();
  readonly conflicts: string[] = [];

  /** Writes an answer's objects, as a cache does; a field given another value than before is a conflict. */
  write(value: Json, context: string): Json {
    if (Array.isArray(value)) return value.map((item) => this.write(item, context));
    if (value === null || typeof value !== 'object') return value;
    const fields = Object.fromEntries(Object.entries(value).map(([key, field]) => [key, this.write(field, context)]));
    if (typeof value.__typename !== 'string' || typeof value.id !== 'string') return fields;
    const key = `${value.__typename}:${value.id}`;
    const stored = this.objects.get(key) ?? {};
    for (const [name, field] of Object.entries(fields)) {
      const text = JSON.stringify(field);
      if (name in stored && stored[name] !== text) {
        this.conflicts.push(`${key}.${name}: ${stored[name]} then ${text} (${context})`);
      }
      stored[name] = text;
    }
    this.objects.set(key, stored);
    return { __ref: key };
  }
}

describe(`ids on ${engineName}`, () => {
  it('every object type with an id is reviewed for unique ids', () => {
    const withIds = Object.values(schema.getTypeMap())
      .filter((type) => isObjectType(type) && !type.name.startsWith('__') && 'id' in type.getFields())
      .map((type) => type.name)
      .sort();
    expect(withIds).toEqual(Object.keys(REVIEWED).sort());
    // Node's id is its implementations' (Package and Photographer, each a UUID of its own table).
    const node = schema.getType('Node');
    expect(isInterfaceType(node) && schema.getPossibleTypes(node).map((t) => t.name)).toEqual([
      'Package',
      'Photographer',
    ]);
  });

  it('no answer gives an object of a cache key another value for a field: not a count, not a currency', async () => {
    const cache = new NormalizedCache();
    const { body: first } = await graphql<{ packages: { results: { photographer: { id: string } }[] } }>(app, QUERY);
    expect(first.errors, JSON.stringify(first.errors)).toBeUndefined();
    const photographerId = first.data?.packages.results[0]?.photographer.id;
    const variables: Record<string, unknown>[] = [
      {},
      { filter: { categories: [1] } },
      { filter: { featured: true } },
      { filter: { instantBooking: true } },
      { filter: { instantBooking: false, categories: [1, 2] } },
      { filter: { currency: 'USD' } },
      { filter: { currency: 'EUR', priceMax: '900.00' } },
      { filter: { currency: 'JPY', featured: false } },
      { filter: { photographerId } },
      { sort: 'PRICE_DESC' },
      { sort: 'PRICE_ASC', filter: { currency: 'USD', categories: [2, 3] } },
      { offset: 100, sort: 'NEWEST' },
    ];
    for (const vars of variables) {
      const { body } = await graphql(app, QUERY, vars);
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      cache.write(body.data as Json, JSON.stringify(vars));
    }
    expect(cache.conflicts).toEqual([]);
    const typenames = new Set([...cache.objects.keys()].map((key) => key.split(':')[0]));
    expect([...typenames].sort()).toEqual(Object.keys(REVIEWED).sort());
    // Facets under twelve filters: many objects, each with one count.
    const facetValues = [...cache.objects.keys()].filter((key) => key.startsWith('FacetValue:'));
    expect(facetValues.length).toBeGreaterThan(300);
  });
});
