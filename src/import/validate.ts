// Validates v2 Package records before they are imported, against the v2 contract's schemas (src/v2/contract.ts):
// every field's type, nullability and decimal scale, plus what a lossless round trip through the database needs
// (decimals that fit their columns, texts PostgreSQL can store, lower-case identifiers, created_at in the form
// the listing writes). Three things the schemas alone do not say are checked here:
// - an object has exactly the spec's keys in the spec's order (the listing writes them so);
// - within one source, a shared record (photographer, image, social site, tag, portfolio entry, add-on template)
//   or a package that appears more than once has the same content every time;
// - a problem inside a value the contract checks as a whole (dimensions) is reported once, at that value.
// Problems come back as { path, expected, got }, e.g. `photographer.calendar_work_days[2].work_times: expected
// JSON text of [{start, end}] HHMM strings, got "[{\"start\":\"0900\"}]"`.
import { hash } from 'node:crypto';
import type { z } from 'zod';
import { contractMeta, Package, Photographer, type SharedKind } from '../v2/contract.js';
import type { V2Package } from '../v2/records.js';
import { isObject } from '../v2/scalars.js';
import { childPlan, formatPath, type Path, type Plan, pathStartsWith, planOf, walk } from './schema-walk.js';

export interface Problem {
  /** Field path inside the record, e.g. `photographer.socials[0].url`; empty for the record itself. */
  path: string;
  expected: string;
  got: string;
}

/** A record's problems at most; the rest are counted, not listed. */
const MAX_PROBLEMS = 20;

type Kind = SharedKind | 'package';

const KIND_NAMES: Record<Kind, string> = {
  package: 'package',
  photographer: 'photographer',
  image: 'image',
  socialSite: 'social site',
  priorityTag: 'priority tag',
  portfolio: 'portfolio entry',
  addOnTemplate: 'add-on template',
};

/**
 * What one source has shown so far: a fingerprint of every shared record and package by identifier, so a repeated
 * copy is compared with the first, and which of them arrived since the last batch was written.
 */
export class SourceIndex {
  private readonly seen = new Map<Kind, Map<string, number>>();
  private readonly fresh = new Map<Kind, Set<string>>();

  fingerprint(kind: Kind, id: string): number | undefined {
    return this.seen.get(kind)?.get(id);
  }

  add(kind: Kind, id: string, fingerprint: number): void {
    id = flatCopy(id);
    const byId = this.seen.get(kind) ?? new Map<string, number>();
    this.seen.set(kind, byId);
    byId.set(id, fingerprint);
    const fresh = this.fresh.get(kind) ?? new Set<string>();
    this.fresh.set(kind, fresh);
    fresh.add(id);
  }

  /** Whether the record was shown before the current batch began (so a writer has it already). */
  inEarlierBatch(kind: Kind, id: string): boolean {
    return this.seen.get(kind)?.has(id) === true && this.fresh.get(kind)?.has(id) !== true;
  }

  /** Starts a new batch: everything shown so far counts as written. */
  nextBatch(): void {
    this.fresh.clear();
  }
}

/**
 * A copy of a (valid, so ASCII) identifier that holds only its own characters. Strings cut out of a larger one
 * (as a streaming parser's tokens are) may keep the whole input chunk they came from alive as long as they are.
 */
export function flatCopy(id: string): string {
  return Buffer.from(id, 'latin1').toString('latin1');
}

/** 48 bits of the SHA-1 of the text: a copy with other content differs with near certainty. */
function fingerprintOf(text: string): number {
  return hash('sha1', text, 'buffer').readUIntBE(0, 6);
}

/** A value as it appears in a message: JSON, at most 80 characters, line separators escaped (one line). */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value) ?? String(value);
  const chars = Array.from(json);
  const cut = chars.length > 80 ? `${chars.slice(0, 80).join('')}…` : json;
  return cut.replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}

interface Found {
  path: Path;
  expected: string;
  got: string;
}

/** A shared record met on the walk, to compare with its earlier copies once the problems are known. */
interface SharedCopy {
  kind: SharedKind;
  id: string;
  value: Record<string, unknown>;
  path: Path;
}

/**
 * One walk over the value: objects whose keys are not exactly the spec's, in its order (each reported once, its
 * insides skipped), and the shared records it holds.
 */
function structure(plan: Plan, value: unknown): { found: Found[]; shared: SharedCopy[] } {
  const found: Found[] = [];
  const shared: SharedCopy[] = [];
  walk(plan, value, [], (node, item, path) => {
    if (!node.keys || !isObject(item)) return true;
    const got = Object.keys(item);
    const want = node.keys;
    if (got.length !== want.length || got.some((key, i) => key !== want[i])) {
      const whole = contractMeta.get(node.node)?.whole;
      const missing = want.filter((key) => !Object.hasOwn(item, key));
      const extra = got.filter((key) => !want.includes(key));
      found.push({
        path: [...path],
        expected: whole ?? "an object with exactly the spec's keys in the spec's order",
        got: whole
          ? show(item)
          : missing.length || extra.length
            ? `missing ${JSON.stringify(missing)}, extra ${JSON.stringify(extra)}`
            : `key order differs from the spec at "${got.find((key, i) => key !== want[i])}"`,
      });
      return false;
    }
    const kind = contractMeta.get(node.node)?.shared;
    if (kind && typeof item.identifier === 'string')
      shared.push({ kind, id: item.identifier, value: item, path: [...path] });
    return true;
  });
  return { found, shared };
}

/** The schema's own checks, each issue at its field (or at the whole value that contains it, where one does). */
function schemaProblems(plan: Plan, value: unknown): Found[] {
  const result = plan.node.safeParse(value);
  if (result.success) return [];
  const found: Found[] = [];
  for (const issue of result.error.issues) {
    let path = issue.path as Path;
    let expected = issue.message;
    let got: string | undefined = (issue as { params?: { got?: string } }).params?.got;
    let node: Plan | undefined = plan;
    for (let depth = 0; node && depth <= path.length; depth++) {
      const whole = contractMeta.get(node.node)?.whole;
      if (whole) {
        path = path.slice(0, depth);
        expected = whole;
        got = undefined;
        break;
      }
      node = depth < path.length ? childPlan(node, path[depth] as string | number) : undefined;
    }
    const key = (issue as { params?: { key?: string } }).params?.key;
    found.push({
      path: key === undefined ? path : [...path, ` key ${JSON.stringify(key)}`],
      expected,
      got: got ?? show(key ?? valueAt(value, path)),
    });
  }
  return found;
}

function valueAt(value: unknown, path: Path): unknown {
  let at = value;
  for (const step of path) at = (at as Record<string | number, unknown> | null | undefined)?.[step];
  return at;
}

/** Shared records that differ from an earlier copy in the source; a valid first copy is remembered. */
function sharedProblems(copies: SharedCopy[], index: SourceIndex, problems: Found[]): Found[] {
  const found: Found[] = [];
  for (const copy of copies) {
    if (problems.some((p) => pathStartsWith(p.path, copy.path))) continue;
    const fingerprint = fingerprintOf(JSON.stringify(copy.value));
    const earlier = index.fingerprint(copy.kind, copy.id);
    if (earlier === undefined) index.add(copy.kind, copy.id, fingerprint);
    else if (earlier !== fingerprint) {
      found.push({
        path: copy.path,
        expected: `the same content as the earlier copy of ${KIND_NAMES[copy.kind]} ${copy.id} in this source (a shared record may not differ within one source)`,
        got: 'a copy with other content',
      });
    }
  }
  return found;
}

/** Every problem of the value against the schema, in the order of the fields. */
function check(schema: z.ZodType, value: unknown, index: SourceIndex | null, base: Path) {
  const plan = planOf(schema);
  const { found: keys, shared } = structure(plan, value);
  const fields = schemaProblems(plan, value).filter((p) => !keys.some((k) => pathStartsWith(p.path, k.path)));
  const all = [...keys, ...fields];
  if (index) all.push(...sharedProblems(shared, index, all));
  if (all.length > 1) all.sort((a, b) => comparePaths(plan, a.path, b.path));
  const problems = all
    .slice(0, MAX_PROBLEMS)
    .map((p) => ({ path: formatPath([...base, ...p.path]), expected: p.expected, got: p.got }));
  return { problems, more: Math.max(0, all.length - MAX_PROBLEMS) };
}

/** Field order first (the spec's), then list positions. */
function comparePaths(plan: Plan, a: Path, b: Path): number {
  let node: Plan | undefined = plan;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]];
    if (x !== y) {
      if (typeof x === 'number' && typeof y === 'number') return x - y;
      const keys = node?.keys ?? [];
      return keys.indexOf(String(x)) - keys.indexOf(String(y));
    }
    node = node && childPlan(node, x as string | number);
  }
  return a.length - b.length;
}

export interface Checked {
  /** The record, when it has no problem. */
  record: V2Package | null;
  problems: Problem[];
  /** Problems found beyond those listed. */
  moreProblems: number;
  /** The record's identifier when it has a string one (valid or not), for messages. */
  identifier: string | null;
  /** An identical copy of a package already shown in this source. */
  repeat: boolean;
  /** About how many characters the record holds besides its photographer (for sizing write batches). */
  weight: number;
}

/**
 * Checks Package records; with a SourceIndex (one per source) also that repeated copies of a package or a shared
 * record within the source are identical.
 */
export class PackageValidator {
  constructor(private readonly index: SourceIndex | null = new SourceIndex()) {}

  validate(value: unknown): Checked {
    const identifier = isObject(value) && typeof value.identifier === 'string' ? value.identifier : null;
    if (!isObject(value)) {
      const problems = [{ path: '', expected: 'a Package record (an object)', got: show(value) }];
      return { record: null, problems, moreProblems: 0, identifier, repeat: false, weight: 0 };
    }
    // The package without its photographer (checked on its own, as a shared record): repeats and batch sizes.
    const own = JSON.stringify({
      ...value,
      photographer: isObject(value.photographer) ? value.photographer.identifier : null,
    });
    const fingerprint = fingerprintOf(own);
    const earlier = identifier !== null ? this.index?.fingerprint('package', identifier) : undefined;
    if (identifier !== null && earlier !== undefined) {
      // A repeated package: identical, it may still embed another copy of its photographer.
      const result =
        earlier === fingerprint
          ? check(Photographer, value.photographer, this.index, ['photographer'])
          : {
              problems: [
                {
                  path: '',
                  expected: `the same content as the earlier copy of package ${identifier} in this source (a record may appear once per source, or repeat identically)`,
                  got: 'a copy with other content',
                },
              ],
              more: 0,
            };
      const valid = result.problems.length === 0;
      return {
        record: valid ? (value as unknown as V2Package) : null,
        problems: result.problems,
        moreProblems: result.more,
        identifier,
        repeat: valid,
        weight: own.length,
      };
    }
    const { problems, more } = check(Package, value, this.index, []);
    const valid = problems.length === 0;
    if (valid && identifier !== null) this.index?.add('package', identifier, fingerprint);
    return {
      record: valid ? (value as unknown as V2Package) : null,
      problems,
      moreProblems: more,
      identifier,
      repeat: false,
      weight: own.length,
    };
  }
}

/** `results[3].photographer.socials[0].url: expected ..., got ...` */
export function describeProblem(problem: Problem, prefix = ''): string {
  const path = problem.path === '' ? prefix : prefix === '' ? problem.path : joinPath(prefix, problem.path);
  return `${path === '' ? 'record' : path}: expected ${problem.expected}, got ${problem.got}`;
}

function joinPath(prefix: string, path: string): string {
  return path.startsWith('[') ? `${prefix}${path}` : `${prefix}.${path}`;
}
