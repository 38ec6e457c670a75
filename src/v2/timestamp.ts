// created_at as the legacy service wrote it: ISO 8601 UTC with six fraction digits and a trailing Z, the
// fraction left out when the microseconds are 0 (as Django REST Framework renders datetimes).
// A JS Date keeps milliseconds only, so the microseconds within the second travel beside it.

export interface MicroTimestamp {
  /** The instant, truncated to the millisecond. */
  date: Date;
  /** Microseconds within the second, 0..999999. */
  micros: number;
}

const PATTERN = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?Z$/;

/** Parses `2021-03-04T05:06:07.123456Z` (fraction optional, up to six digits); null when malformed. */
export function parseMicroTimestamp(text: string): MicroTimestamp | null {
  const match = PATTERN.exec(text);
  if (!match) return null;
  const seconds = Date.parse(`${match[1]}Z`);
  if (Number.isNaN(seconds)) return null;
  const micros = Number((match[2] ?? '').padEnd(6, '0'));
  return { date: new Date(seconds + Math.floor(micros / 1000)), micros };
}

export function formatMicroTimestamp({ date, micros }: MicroTimestamp): string {
  const seconds = date.toISOString().slice(0, 19);
  return micros === 0 ? `${seconds}Z` : `${seconds}.${String(micros).padStart(6, '0')}Z`;
}
