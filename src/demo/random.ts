// Seeded randomness for the demo data: one randomizer shared by a Faker per market locale, seeded once,
// and the helpers that decide nulls and list lengths by mode (sparse, rich or random).

import {
  base,
  de,
  en,
  en_AU,
  en_CA,
  en_GB,
  en_US,
  es_MX,
  Faker,
  fr,
  generateMersenne53Randomizer,
  ja,
  type LocaleDefinition,
  pl,
  pt_BR,
  type Randomizer,
} from '@faker-js/faker';

export type MarketLocale = 'us' | 'gb' | 'ca' | 'au' | 'de' | 'fr' | 'pl' | 'jp' | 'br' | 'mx';

const LOCALE_CHAINS: Record<MarketLocale, LocaleDefinition[]> = {
  us: [en_US, en, base],
  gb: [en_GB, en, base],
  ca: [en_CA, en, base],
  au: [en_AU, en, base],
  de: [de, en, base],
  fr: [fr, en, base],
  pl: [pl, en, base],
  jp: [ja, en, base],
  br: [pt_BR, en, base],
  mx: [es_MX, en, base],
};

const HEX_BYTES = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * The seeded random source. Names come from Faker instances, one per market locale, that share one randomizer
 * seeded through faker.seed(). The small draws below read that randomizer directly: faker's option-object calls
 * cost several times more, and 100,000 records take tens of millions of draws.
 */
export class Rng {
  private readonly randomizer: Randomizer;
  private readonly fakers = new Map<MarketLocale, Faker>();

  constructor(seed: number) {
    this.randomizer = generateMersenne53Randomizer();
    for (const [key, locale] of Object.entries(LOCALE_CHAINS)) {
      this.fakers.set(key as MarketLocale, new Faker({ locale, randomizer: this.randomizer }));
    }
    this.locale('us').seed(seed); // seeds the shared randomizer, hence every instance
  }

  locale(key: MarketLocale): Faker {
    const faker = this.fakers.get(key);
    if (!faker) throw new Error(`no faker for locale ${key}`);
    return faker;
  }

  /** An integer from min to max, both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.randomizer.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.randomizer.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(0, items.length - 1)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** `min`..`max` distinct items, kept in their catalogue order (selection sampling, Knuth's algorithm S). */
  some<T>(items: readonly T[], min: number, max: number): T[] {
    let wanted = this.int(Math.min(min, items.length), Math.min(max, items.length));
    const chosen: T[] = [];
    for (let i = 0; wanted > 0; i++) {
      if (this.randomizer.next() * (items.length - i) < wanted) {
        chosen.push(items[i] as T);
        wanted--;
      }
    }
    return chosen;
  }

  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const copy = items.slice();
    for (let i = copy.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const swap = copy[i] as T;
      copy[i] = copy[j] as T;
      copy[j] = swap;
    }
    return copy;
  }

  /** `count` results of `make`, which gets the position. */
  times<T>(count: number, make: (i: number) => T): T[] {
    const results: T[] = [];
    for (let i = 0; i < count; i++) results.push(make(i));
    return results;
  }

  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let roll = this.randomizer.next() * total;
    for (const [value, weight] of entries) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return this.pick(entries)[0]; // not reached unless rounding leaves a sliver
  }

  /** A lower-case v4 UUID from four 32-bit draws. */
  uuid(): string {
    const a = this.hex32();
    const b = this.hex32();
    const c = this.hex32();
    // Version 4 in the 13th digit, the RFC 4122 variant (8, 9, a or b) in the 17th.
    const version = `4${b.slice(5, 8)}`;
    const variant = `${'89ab'[this.int(0, 3)]}${c.slice(1, 4)}`;
    return `${a}-${b.slice(0, 4)}-${version}-${variant}-${c.slice(4)}${this.hex32()}`;
  }

  /** Eight hex digits. */
  private hex32(): string {
    const word = this.int(0, 0xffffffff);
    return (
      (HEX_BYTES[word >>> 24] as string) +
      HEX_BYTES[(word >>> 16) & 0xff] +
      HEX_BYTES[(word >>> 8) & 0xff] +
      HEX_BYTES[word & 0xff]
    );
  }

  alnum(length: number): string {
    let text = '';
    for (let i = 0; i < length; i++) text += ALNUM[this.int(0, ALNUM.length - 1)];
    return text;
  }

  /** Digits, the first one not 0. */
  digits(length: number): string {
    let text = String(this.int(1, 9));
    for (let i = 1; i < length; i++) text += String(this.int(0, 9));
    return text;
  }

  hexColour(): string {
    return `#${this.int(0, 0xffffff).toString(16).padStart(6, '0')}`;
  }
}

/** sparse: every nullable field null and every array empty; rich: all filled; random: by chance. */
export type Mode = 'sparse' | 'rich' | 'random';

export function maybe<T>(rng: Rng, mode: Mode, nullChance: number, make: () => T): T | null {
  if (mode === 'sparse') return null;
  if (mode === 'rich' || !rng.chance(nullChance)) return make();
  return null;
}

/** How many items an array gets: 0 when sparse, at least `richMin` when rich. */
export function howMany(rng: Rng, mode: Mode, emptyChance: number, max: number, richMin = 1): number {
  if (mode === 'sparse' || max === 0) return 0;
  if (mode === 'rich') return rng.int(Math.min(richMin, max), max);
  return rng.chance(emptyChance) ? 0 : rng.int(1, max);
}
