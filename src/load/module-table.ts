/**
 * Bundled into a registry bundle that keeps its modules for rebuilds (see RegistryBundler): each local
 * ES module registers its namespace here once it has run, and the bundle exports the table, so that a
 * later rebuild can hand an unchanged module's importers this very instance instead of running it again.
 */
export const modules = new Map<string, Record<string, unknown>>()

export function registerModule(file: string, namespace: Record<string, unknown>): void {
  modules.set(file, namespace)
}
