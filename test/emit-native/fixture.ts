import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ScriptBundler } from '../../src/bundle/index.js'
import { compilePlan, type PlanOptions } from '../../src/compile/index.js'
import type { Plan } from '../../src/compile/plan.js'
import { hasErrors, OacError } from '../../src/diagnostics.js'
import { emitOmp } from '../../src/emit/omp.js'
import { emitOpencode } from '../../src/emit/opencode.js'
import { emitPi } from '../../src/emit/pi.js'
import type { OutputFile } from '../../src/emit/types.js'
import { loadRegistry } from '../../src/load/index.js'
import { tempDir } from '../util/temp.js'

/** The project whose agents and tools the native emitter tests compile (agents/registry.ts). */
export const fixtureRoot = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'native-tools')

/** The project of tools with rich results: images, details, structured output, error results, approvals. */
export const richFixtureRoot = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'rich-results')

/** The plan the real load and compile steps make of the fixture (its `test` config), or of another project (its default config). */
export async function fixturePlan(options: Omit<PlanOptions, 'root'> = {}, root = fixtureRoot, registry = 'agents/registry.ts#registry'): Promise<Plan> {
  const loaded = await loadRegistry(registry, root)
  const compiled = compilePlan(loaded, { root, ...(root === fixtureRoot && { config: 'test' }), ...options })
  const diagnostics = [...loaded.diagnostics, ...compiled.diagnostics]
  if (!compiled.plan || hasErrors(diagnostics)) throw new OacError(diagnostics)
  return compiled.plan
}

export { tempDir }

const repoNodeModules = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules')

/** A temp folder whose `node_modules` links to ours, so generated files resolve the real type and harness packages from it. */
export async function linkedTempDir(): Promise<string> {
  const dir = await tempDir()
  await symlink(repoNodeModules, join(dir, 'node_modules'), 'dir')
  return dir
}

export async function writeFiles(files: readonly OutputFile[], dir: string): Promise<void> {
  for (const file of files) {
    if (file.kind !== 'owned') continue
    const path = join(dir, ...file.path.split('/'))
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, file.content)
  }
}

/** The native shims of opencode, pi and omp. */
export function emitNative(plan: Plan): OutputFile[] {
  return [...emitOpencode(plan), ...emitPi(plan), ...emitOmp(plan)]
}

/** A target folder holding the native shims and the real bundled scripts of the plan (of the project at `root`). */
export async function buildTarget(plan: Plan, dir?: string, root = fixtureRoot): Promise<string> {
  const target = dir ?? (await tempDir())
  const bundler = new ScriptBundler(root)
  try {
    const bundled = await bundler.build(plan)
    if (hasErrors(bundled.diagnostics)) throw new OacError(bundled.diagnostics)
    await writeFiles([...emitNative(plan), ...bundled.files], target)
  } finally {
    await bundler.dispose()
  }
  return target
}

export { type Run, run } from '../util/process.js'
