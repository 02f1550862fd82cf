import type { Plan, PluginInfo } from '../../compile/plan.js'
import type { Harness, JsonValue } from '../../define/types.js'
import type { OutputFile } from '../types.js'

/** What one format adds to the plugin folder: its manifest and the files it points at, and its keys of the shared `package.json`. */
export interface PluginParts {
  files: OutputFile[]
  packageJson?: { [key: string]: JsonValue }
}

/** The plan of a plugin folder: its identity is there. */
export type PluginPlan = Plan & { plugin: PluginInfo }

/** A format's emitter, given the selected harnesses that install the folder in that format. Pure. */
export type PluginFormatEmitter = (plan: PluginPlan, harnesses: readonly Harness[]) => PluginParts
