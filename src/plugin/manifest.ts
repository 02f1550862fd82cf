import type { Plan } from '../compile/plan.js'
import type { JsonValue } from '../define/types.js'
import { jsValue } from '../emit/codegen/escape.js'
import type { OutputFile } from '../emit/types.js'
import type { OacManifest } from './virtual.js'

// Apart from virtual.ts: the code generator pulls in the emit stage's dependencies, which a build
// served from the cache never loads (it serves the module's code from the record).

export function manifestOf(plan: Plan, files: readonly OutputFile[]): OacManifest {
  return {
    config: plan.config,
    harnesses: plan.harnesses,
    nativeTools: plan.nativeTools,
    serverName: plan.serverName,
    agents: plan.agents.map((agent) => ({
      name: agent.name,
      description: agent.description,
      mode: agent.mode,
      tools: agent.tools,
      model: agent.model,
    })),
    tools: plan.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      json: tool.json,
      schemaKind: tool.schemaKind,
      schema: tool.schema,
      script: tool.script,
    })),
    files: files.map((file) => file.path),
  }
}

/** The virtual module's code: the manifest as a default export plus one named export per field. */
export function manifestModule(manifest: OacManifest): string {
  const data: { [key: string]: JsonValue } = { ...manifest }
  const named = Object.keys(manifest).map((key) => `export const ${key} = manifest.${key}\n`)
  return `const manifest = ${jsValue(data)}\nexport default manifest\n${named.join('')}`
}
