import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { everyHook, everyTool, isRegistry } from '../define/guards.js'
import { projectPath } from '../project-path.js'
import type { AnyHookDefinition, HookDecisionKind } from '../define/hooks.js'
import type { AnyToolDefinition, RegistryDefinition } from '../define/types.js'
import type { Diagnostic } from '../diagnostics.js'
import { cacheFolder } from '../cache-folder.js'
import { RegistryBundler } from './bundle.js'
import { importFailure } from './import-error.js'
import { readHookDecisions } from './hook-decisions.js'
import { bundleLocator, relocateDefinitions } from './locations.js'
import { readPrompts, type TextOwner } from './prompts.js'
import { DefinitionModules } from './run-context.js'
import { type ResultPart, readToolResults } from './tool-results.js'
import { parseRegistrySpec, resolveModulePath } from './spec.js'
import { projectZod, type ZodCopy } from './zod-copy.js'

export interface LoadedRegistry {
  registry: RegistryDefinition
  /**
   * Every agent's prompt, skill's instructions and command's prompt by its definition, and each
   * `{ file }` of a skill's extra files by that object: `{ file }` texts already read from disk.
   */
  prompts: ReadonlyMap<TextOwner, string>
  /** Absolute paths of every local source file the definitions came from, prompt files included (for watch mode). */
  files: string[]
  diagnostics: Diagnostic[]
  /** The project's zod, as the registry imported it: set when a zod schema cannot convert itself (zod before 4.2, zod/mini). */
  zod?: ZodCopy
  /** What each hook's `run` decides, where its code tells (see hook-decisions.ts). */
  hookDecisions: ReadonlyMap<AnyHookDefinition, HookDecisionKind[]>
  /** The parts of a rich result each tool's `run` can return, where its code tells (see tool-results.ts). */
  toolResults: ReadonlyMap<AnyToolDefinition, ResultPart[]>
}

/**
 * The export to compile: the named one; with none named, the default export, else the module's one
 * registry export when it has exactly one (`agents/registry.ts` for `export const registry = ...`).
 */
function chooseExport(namespace: Record<string, unknown>, named: string | undefined): { name: string; registries: string[] } {
  if (named !== undefined) return { name: named, registries: [] }
  if (namespace.default !== undefined) return { name: 'default', registries: [] }
  const registries = Object.keys(namespace).filter((name) => isRegistry(namespace[name]))
  return { name: registries.length === 1 ? registries[0]! : 'default', registries }
}

function failed(diagnostics: Diagnostic[], files: string[] = []): LoadedRegistry {
  return { registry: emptyRegistry(), prompts: new Map(), files, diagnostics, hookDecisions: new Map(), toolResults: new Map() }
}

function emptyRegistry(): RegistryDefinition {
  return { kind: 'oac:registry', agents: [], tools: [], hooks: [], skills: [], commands: [], mcpServers: [], rules: [], configs: {}, source: { file: '<none>', line: 0, column: 0 } }
}

/**
 * Loads the registry named by `spec` (`path/to/registry.ts:exportName`, `path#exportName`, or a path for
 * the default export or the module's one registry export; relative to `root`). The module is bundled afresh on every call, so watch mode
 * sees edits; pass the same `bundler` to every call of a watch session so it re-parses only what
 * changed. Problems come back as diagnostics, never as thrown stacks.
 */
export async function loadRegistry(spec: string, projectRoot: string, bundler?: RegistryBundler): Promise<LoadedRegistry> {
  if (bundler) return loadWith(spec, projectRoot, bundler)
  const oneShot = new RegistryBundler()
  try {
    return await loadWith(spec, projectRoot, oneShot)
  } finally {
    await oneShot.dispose()
  }
}

async function loadWith(spec: string, projectRoot: string, bundler: RegistryBundler): Promise<LoadedRegistry> {
  const root = resolve(projectRoot)
  const parsed = parseRegistrySpec(spec)
  if (!parsed) {
    return failed([
      {
        severity: 'error',
        code: 'registry-spec-invalid',
        message: `"${spec}" does not name a registry module.`,
        fix: 'Name it as path/to/registry.ts:exportName (or path#exportName; the default export when none is named).',
      },
    ])
  }
  const entry = resolveModulePath(resolve(root, parsed.path))
  const where = projectPath(root, entry)
  if (!existsSync(entry)) {
    return failed([
      {
        severity: 'error',
        code: 'registry-not-found',
        message: `The registry module ${where} does not exist.`,
        fix: `Check the path in "${spec}"; it is resolved from ${root}.`,
      },
    ])
  }

  // Bare imports in the bundle resolve from here, as they would from the project's own files.
  const cache = cacheFolder(root)
  const loaded = await bundler.load(entry, root, cache)
  // Watch the entry even when it does not compile, so fixing it triggers the next build.
  if (Array.isArray(loaded)) return failed(loaded, [entry])
  const { bundle, bundleFiles } = loaded
  const locate = bundleLocator(bundleFiles, bundle.sourceMap, root)
  if ('error' in loaded) {
    const context = { root, inputs: bundle.inputs, registry: where, bundleFile: bundleFiles.at(-1)!, locate }
    return failed([importFailure(loaded.error, context)], bundle.inputs)
  }
  const namespace = loaded.namespace

  const chosen = chooseExport(namespace, parsed.exportName)
  const exportName = chosen.name
  const value = namespace[exportName]
  const isDefault = exportName === 'default'
  if (value === undefined) {
    const existing = Object.keys(namespace)
    const several = chosen.registries.length > 1
    return failed(
      [
        {
          severity: 'error',
          code: 'registry-export-missing',
          message: several
            ? `${where} has no default export and several registries: ${chosen.registries.join(', ')}.`
            : `${where} has no ${isDefault ? 'default export' : `export named "${exportName}"`}. ${existing.length ? `Its exports: ${existing.join(', ')}.` : 'It exports nothing.'}`,
          fix: several
            ? `Name the one to compile, e.g. ${parsed.path}:${chosen.registries[0]}.`
            : existing.length
              ? `Name one of its exports (e.g. ${parsed.path}:${existing[0]}), or export the registry as ${isDefault ? 'default' : `"${exportName}"`}.`
              : 'Export the registry: export const registry = defineRegistry({ ... }).',
          file: where,
        },
      ],
      bundle.inputs,
    )
  }
  if (!isRegistry(value)) {
    return failed(
      [
        {
          severity: 'error',
          code: 'registry-not-defined',
          message: `The ${isDefault ? 'default export' : `export "${exportName}"`} of ${where} is not a registry made by defineRegistry.`,
          fix: `Wrap it: export const ${isDefault ? 'registry' : exportName} = defineRegistry({ agents: [...], tools: [...] }), with defineRegistry imported from 'unplugin-oac'.`,
          file: where,
        },
      ],
      bundle.inputs,
    )
  }

  relocateDefinitions(value, locate)
  const prompts = await readPrompts(value, root)
  const tools = everyTool(value)
  const zod = needsProjectZod(tools) ? await projectZod(cache) : undefined
  // Hooks and tools often share modules: each is read and parsed once for both.
  const modules = new DefinitionModules()
  const hookDecisions = await readHookDecisions(everyHook(value), modules)
  const toolResults = await readToolResults(tools, modules)
  return {
    registry: value,
    prompts: prompts.texts,
    hookDecisions,
    toolResults,
    files: [...new Set([...bundle.inputs, ...prompts.files])].sort(),
    diagnostics: prompts.diagnostics,
    ...(zod && { zod }),
  }
}

/** True when a tool's input is a zod schema without its own `toJSONSchema` (zod before 4.2, zod/mini). */
function needsProjectZod(tools: readonly AnyToolDefinition[]): boolean {
  return tools.some((tool) => {
    const input: unknown = tool.input
    return typeof input === 'object' && input !== null && '_zod' in input && typeof (input as { toJSONSchema?: unknown }).toJSONSchema !== 'function'
  })
}
