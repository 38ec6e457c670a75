// /v2/openapi.json describes what the endpoint really sends: real responses validate against its schemas,
// and its record schemas list the spec's fields in the spec's order.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { edgePackages } from '../fixtures/edge-records.js';
import * as contract from '../fixtures/v2-contract/fields.mjs';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

let db: TestDatabase;
let app: ReturnType<typeof createApp>;
let document: { openapi: string; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
let ajv: Ajv2020;

beforeAll(async () => {
  db = await createListingTestDatabase(150);
  app = createApp({ db });
  document = await (await app.fetch('http://x/v2/openapi.json')).json();
  ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
  ajv.addVocabulary(['components']); // the document's container of schemas, not a keyword to validate
  ajv.addSchema({ $id: 'openapi', components: document.components });
});
afterAll(() => db?.destroy());

function validate(schemaName: string, value: unknown): string[] {
  const check = ajv.getSchema(`openapi#/components/schemas/${schemaName}`);
  if (!check) throw new Error(`no schema ${schemaName}`);
  return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe(`OpenAPI description of the v2 endpoint (${engineName})`, () => {
  it('is an OpenAPI 3.1 document with the path, its parameters and error responses', () => {
    expect(document.openapi).toBe('3.1.0');
    const get = (
      document as unknown as { paths: Record<string, { get: { parameters: { name: string }[]; responses: object } }> }
    ).paths['/v2/local-package-list/']?.get;
    expect(get?.parameters.map((p) => p.name)).toEqual(['format', 'limit', 'offset', 'seed']);
    expect(Object.keys(get?.responses ?? {})).toEqual(['200', '400', '401', '404', '405', '406', '429', '500', '503']);
  });

  it.each([
    ['Package', contract.Package],
    ['Photographer', contract.Photographer],
    ['Image', contract.Image],
    ['Location', contract.Location],
    ['Review', contract.Review],
    ['CalendarWorkDay', contract.CalendarWorkDay],
  ])('lists the fields of %s in the spec order', (name, fields) => {
    expect(Object.keys(document.components.schemas[name]?.properties ?? {})).toEqual(fields.map(([field]) => field));
  });

  it('validates every page of a real walk, edge records included', async () => {
    let url: string | null = 'http://x/v2/local-package-list/?limit=100&seed=8';
    let pages = 0;
    while (url) {
      const page = await (await app.fetch(url)).json();
      expect(validate('Page', page)).toEqual([]);
      url = page.next;
      pages++;
    }
    expect(pages).toBe(2);
  });

  it('validates the error and metadata bodies', async () => {
    expect(validate('Error', await (await app.fetch('http://x/v2/local-package-list/?seed=x')).json())).toEqual([]);
    expect(validate('Error', await (await app.fetch('http://x/v2/local-package-list/?format=xml')).json())).toEqual([]);
    expect(
      validate('Error', await (await app.fetch('http://x/v2/local-package-list/', { method: 'POST' })).json()),
    ).toEqual([]);
    const options = await app.fetch('http://x/v2/local-package-list/', { method: 'OPTIONS' });
    expect(validate('Metadata', await options.json())).toEqual([]);
  });

  it('catches a record that breaks it (the check can fail)', () => {
    const broken = { ...edgePackages[0], price: 12.5 };
    expect(validate('Package', broken).join()).toContain('/price');
  });
});
