/**
 * A pure function of one plan object (a tool, a schema), computed once for as long as the object
 * lives: the nine emitters document and shim the same tools, for every agent that has them, and a
 * plan is never changed once compile made it.
 */
export function memoByObject<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const known = new WeakMap<K, V>()
  return (key) => {
    if (known.has(key)) return known.get(key) as V
    const value = compute(key)
    known.set(key, value)
    return value
  }
}
