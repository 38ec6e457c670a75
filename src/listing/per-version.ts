// What depends only on the listing version, kept for the newest version asked for (the one worth keeping): read
// once per version and process, however many requests ask. A failed read is not kept.

/** A keeper of one value per listing version: `(version, read)` gives the kept value, or reads it. */
export function keptPerVersion<T>(): (version: string, read: () => Promise<T>) => Promise<T> {
  let kept: { version: string; value: Promise<T> } | undefined;
  return (version, read) => {
    if (kept?.version === version) return kept.value;
    const slot = { version, value: read() };
    kept = slot;
    slot.value.catch(() => {
      if (kept === slot) kept = undefined;
    });
    return slot.value;
  };
}
