// Walking a zod schema and a value side by side: the import's checks that look at a record's structure (key order,
// shared records) follow the contract's schemas rather than a list of their own. A schema is compiled once into a
// plan (its keys, children and metadata), so a walk costs little more than visiting the value.
import { z } from 'zod';

export type Path = (string | number)[];

/** The schema inside `nullable()`/`optional()` wrappers. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let node = schema;
  while (node instanceof z.ZodNullable || node instanceof z.ZodOptional) node = node.unwrap() as z.ZodType;
  return node;
}

export interface Plan {
  /** The unwrapped schema (where metadata is registered). */
  node: z.ZodType;
  /** An object's keys in order, with their plans. */
  keys?: string[];
  fields?: Plan[];
  /** A list's item plan. */
  item?: Plan;
}

const plans = new WeakMap<z.ZodType, Plan>();

export function planOf(schema: z.ZodType): Plan {
  const node = unwrap(schema);
  let plan = plans.get(node);
  if (plan) return plan;
  plan = { node };
  plans.set(node, plan);
  if (node instanceof z.ZodObject) {
    const shape = node.shape as Record<string, z.ZodType>;
    plan.keys = Object.keys(shape);
    plan.fields = plan.keys.map((key) => planOf(shape[key] as z.ZodType));
  } else if (node instanceof z.ZodArray) plan.item = planOf(node.element as z.ZodType);
  return plan;
}

/** The plan of a field or list item, or undefined. */
export function childPlan(plan: Plan, step: string | number): Plan | undefined {
  if (typeof step === 'number') return plan.item;
  const index = plan.keys?.indexOf(step) ?? -1;
  return index < 0 ? undefined : plan.fields?.[index];
}

/**
 * Visits every plan node with the value at its place, depth first in field order; a visit that returns false is
 * not descended into. `path` is one array, changed as the walk goes: copy it to keep it.
 */
export function walk(
  plan: Plan,
  value: unknown,
  path: Path,
  visit: (plan: Plan, value: unknown, path: Path) => boolean,
): void {
  if (!visit(plan, value, path) || value === null || typeof value !== 'object') return;
  if (plan.keys && plan.fields && !Array.isArray(value)) {
    for (let i = 0; i < plan.keys.length; i++) {
      const key = plan.keys[i] as string;
      path.push(key);
      walk(plan.fields[i] as Plan, (value as Record<string, unknown>)[key], path, visit);
      path.pop();
    }
  } else if (plan.item && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      walk(plan.item, value[i], path, visit);
      path.pop();
    }
  }
}

/** `photographer.socials[0].url`; a step that starts with a space is a note appended as it is. */
export function formatPath(path: Path): string {
  let out = '';
  for (const step of path) {
    if (typeof step === 'number') out += `[${step}]`;
    else if (step.startsWith(' ')) out += step;
    else out += out === '' ? step : `.${step}`;
  }
  return out;
}

export function pathStartsWith(path: Path, prefix: Path): boolean {
  return prefix.length <= path.length && prefix.every((step, i) => path[i] === step);
}
