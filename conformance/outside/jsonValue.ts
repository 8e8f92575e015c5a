/**
 * Checks on values that come from outside (an implementation, a file): whether they are plain
 * JSON at all (how deep they nest is `jsonDepth`, in contract/). The walk is iterative, so a value
 * nested 100,000 deep is measured, not a stack overflow.
 */

/**
 * Why a value is not a plain JSON value of at most `maxDepth` levels, or undefined when it
 * is one. Walks iteratively; a shared (not cyclic) object is fine. Pure.
 */
export function jsonValueProblem(value: unknown, maxDepth: number): string | undefined {
  type Item = { readonly value: unknown; readonly depth: number; readonly path: string } | { readonly leave: object };
  const stack: Item[] = [{ value, depth: 0, path: '' }];
  const onPath = new WeakSet<object>();
  while (stack.length > 0) {
    const item = stack.pop() as Item;
    if ('leave' in item) {
      onPath.delete(item.leave);
      continue;
    }
    const { value: v, depth, path } = item;
    const where = path === '' ? 'the value' : path;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return `${where} is ${v}, which JSON cannot hold`;
      continue;
    }
    if (typeof v !== 'object') return `${where} is a ${typeof v}, which JSON cannot hold`;
    if (depth + 1 > maxDepth) return `${where} is nested deeper than the limit of ${maxDepth} levels`;
    if (onPath.has(v)) return `${where} refers back to itself (a cycle)`;
    const proto = Object.getPrototypeOf(v) as unknown;
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return `${where} is not a plain object`;
    onPath.add(v);
    stack.push({ leave: v });
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
    for (const [key, child] of entries)
      stack.push({ value: child, depth: depth + 1, path: path === '' ? key : `${path}.${key}` });
  }
  return undefined;
}
