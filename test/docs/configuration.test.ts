import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { environment } from '../../src/config.js';
import { CONFIGURATION_DOC, configurationEntries, renderConfigurationDoc } from '../../src/config-docs.js';

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` renders from the schema (run it after changing src/environment.ts)', () => {
    expect(readFileSync(new URL(`../../${CONFIGURATION_DOC}`, import.meta.url), 'utf8')).toBe(renderConfigurationDoc());
  });

  it('gives every variable a default, the values it accepts and what it does', () => {
    const entries = configurationEntries();
    expect(entries.map((e) => e.name)).toEqual(Object.keys(environment.shape));
    for (const entry of entries) {
      expect(entry.does, entry.name).not.toBe('');
      expect(entry.accepts, entry.name).not.toBe('text');
      expect(entry.default, entry.name).not.toBe('');
    }
  });
});
