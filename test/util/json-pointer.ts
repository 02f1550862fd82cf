/** The schema a local `$ref` of `root` points at (`#/...`, a JSON Pointer into `root`), or undefined where it points at nothing. */
export function resolvedRef(root: Record<string, unknown>, ref: unknown): unknown {
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return undefined
  let at: unknown = root
  for (const key of ref.slice(2).split('/')) at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key.replaceAll('~1', '/').replaceAll('~0', '~')] : undefined
  return at
}
