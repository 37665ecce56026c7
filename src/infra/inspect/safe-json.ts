/**
 * Turn anything an actor may carry (events and context are typed, but inspection sees whatever was sent)
 * into a JSON-compatible value, so writing an inspection record can never throw: cycles, bigints,
 * functions, symbols, non-finite numbers, Maps, Sets and errors all get a readable stand-in, objects with
 * `toJSON` (dates, xstate snapshots and actor refs) are asked for their own form, and very deep values
 * are cut off.
 */
export function toSafeJson(value: unknown, maxDepth = 16): unknown {
  const ancestors = new Set<object>();

  function walk(current: unknown, depth: number): unknown {
    switch (typeof current) {
      case 'string':
      case 'boolean':
        return current;
      case 'number':
        return Number.isFinite(current) ? current : String(current);
      case 'bigint':
        return `${current}n`;
      case 'symbol':
        return current.toString();
      case 'function':
        return `[Function ${current.name || 'anonymous'}]`;
      case 'undefined':
        return undefined;
    }
    if (current === null) return null;
    const object = current as object;
    if (ancestors.has(object)) return '[Circular]';
    if (depth >= maxDepth) return '[Truncated]';
    ancestors.add(object);
    try {
      return walkObject(object, depth);
    } finally {
      ancestors.delete(object);
    }
  }

  function walkObject(object: object, depth: number): unknown {
    if (object instanceof Error) return { name: object.name, message: object.message };
    if ('toJSON' in object && typeof object.toJSON === 'function') {
      try {
        return walk(object.toJSON(), depth + 1);
      } catch (error) {
        return `[Unserializable: ${(error as Error).message}]`;
      }
    }
    if (object instanceof Map) return walk([...object.entries()], depth + 1);
    if (object instanceof Set) return walk([...object.values()], depth + 1);
    // JSON turns `undefined` into null inside arrays and drops it from objects; do the same.
    if (Array.isArray(object)) return object.map((item) => walk(item, depth + 1) ?? null);
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(object)) {
      const converted = walk(item, depth + 1);
      if (converted !== undefined) result[key] = converted;
    }
    return result;
  }

  return walk(value, 0);
}

/** One line of JSON for any value. */
export function safeJsonLine(value: unknown): string {
  return `${JSON.stringify(toSafeJson(value) ?? null)}\n`;
}
