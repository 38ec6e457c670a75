// Value formatting shared by the demo data generators: decimals, clock values, slugs, templates, frozen records.

/** An integer count of 10^-places units as a decimal string: decimal(150000, 2) is "1500.00". */
export function decimal(units: number, places: number): string {
  const digits = String(Math.abs(Math.round(units))).padStart(places + 1, '0');
  return `${units < 0 ? '-' : ''}${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

export const clockJson = (hour: number, minute: number) => JSON.stringify({ hour, minute });

/** HHMM without leading zero, as the work_times strings carry it: 9:00 is "900", 0:30 is "30". */
export const hhmm = (hour: number, minute: number) => String(hour * 100 + minute);

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escapeHtml = (text: string) =>
  /[&<>"]/.test(text) ? text.replace(/[&<>"]/g, (c) => HTML_ESCAPES[c] ?? c) : text;

const TRANSLITERATIONS: Record<string, string> = { ł: 'l', ø: 'o', ß: 'ss', æ: 'ae', œ: 'oe', đ: 'd', ð: 'd', þ: 'th' };

/** ASCII slug; letters without a Latin form (kana, kanji, emoji) drop out, so the result may be ''. */
export function slugify(text: string, maxLength = 48): string {
  return text
    .toLowerCase()
    .replace(/[łøßæœđðþ]/g, (c) => TRANSLITERATIONS[c] ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // accents split off by NFKD
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, maxLength)
    .replace(/^-+|-+$/g, '');
}

const templateParts = new Map<string, string[]>();

/** Fills {name} placeholders; values are HTML-escaped when the template is HTML. */
export function fill(template: string, values: Record<string, string>, html: boolean): string {
  let parts = templateParts.get(template);
  if (!parts) {
    parts = template.split(/\{(\w+)\}/); // text, key, text, key, ..., text
    templateParts.set(template, parts);
  }
  let text = parts[0] ?? '';
  for (let i = 1; i < parts.length; i += 2) {
    const key = parts[i] as string;
    const value = values[key] ?? `{${key}}`;
    text += (html ? escapeHtml(value) : value) + parts[i + 1];
  }
  return text;
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
