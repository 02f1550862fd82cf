import { harness } from '../../compile/harnesses/index.js'
import type { PluginFormat } from '../../compile/harnesses/types.js'
import type { Harness, JsonValue } from '../../define/types.js'
import { jsonDocument } from '../codegen/escape.js'
import { emitRules } from '../rules.js'
import { skillsIn } from '../skills.js'
import type { OutputFile } from '../types.js'
import { emitClaudePlugin } from './claude.js'
import { emitClinePlugin } from './cline.js'
import { emitCodexPlugin } from './codex.js'
import { emitGeminiExtension } from './gemini.js'
import { emitOmpPlugin } from './omp.js'
import { emitOpencodePlugin } from './opencode.js'
import { emitPiPackage } from './pi.js'
import { packageMetadataFields } from './metadata.js'
import type { PluginFormatEmitter, PluginPlan } from './types.js'

/** Every format's emitter; one line per format, and a format without one does not type-check. */
const FORMATS = { claude: emitClaudePlugin, gemini: emitGeminiExtension, codex: emitCodexPlugin, pi: emitPiPackage, omp: emitOmpPlugin, opencode: emitOpencodePlugin, cline: emitClinePlugin } satisfies Record<PluginFormat, PluginFormatEmitter>

/** The folder's root skills folder. */
const ROOT_SKILLS = 'skills'

/**
 * The formats that read the root `skills/`: Gemini CLI's extension (its fixed skills folder), an
 * oh-my-pi package (its conventional folder, with no manifest key) and Claude Code's plugin (which
 * reads it whatever its manifest names; the Copilot CLI's manifest names it), and an installed Cline
 * plugin (the `skills/` beside its package.json). Their skills are one folder, written once for all of them.
 */
const ROOT_SKILL_FORMATS: ReadonlySet<PluginFormat> = new Set(['gemini', 'omp', 'claude', 'cline'])

/**
 * A plugin folder (`--plugin`): every format a selected harness installs from, side by side in one
 * folder, and one `package.json` so that the folder can be published to npm as it is. The scripts
 * and the MCP server are the bundler's, as in a project; every path in a manifest resolves from the
 * plugin's own root, never from a project.
 */
export function emitPlugin(plan: PluginPlan): OutputFile[] {
  const byFormat = new Map<PluginFormat, Harness[]>()
  for (const id of plan.harnesses) {
    const format = harness(id).plugin.format
    byFormat.set(format, [...(byFormat.get(format) ?? []), id])
  }
  const parts = [...byFormat].map(([format, harnesses]) => FORMATS[format](plan, harnesses))
  const rootSkillReaders = plan.harnesses.filter((id) => ROOT_SKILL_FORMATS.has(harness(id).plugin.format))
  if (rootSkillReaders.length > 0) parts.push({ files: skillsIn(plan, ROOT_SKILLS, rootSkillReaders) })
  // The formats that carry instructions read them from files of their own (their harnesses' `instructions.plugin`).
  parts.push({ files: emitRules(plan) })
  const { name, version, description } = plan.plugin
  const packageJson: { [key: string]: JsonValue } = { name, version, description, ...packageMetadataFields(plan.plugin) }
  for (const part of parts) {
    for (const [key, value] of Object.entries(part.packageJson ?? {})) {
      // Two formats may each name keywords (pi's `pi-package`); any other key is one format's own.
      packageJson[key] = key === 'keywords' && Array.isArray(packageJson[key]) && Array.isArray(value) ? [...packageJson[key], ...value] : value
    }
  }
  const files = parts.flatMap((part) => part.files)
  packageJson.files = publishedFiles(files)
  return [...files, { kind: 'owned', path: 'package.json', content: jsonDocument(packageJson) }]
}

/**
 * What `npm publish` takes from the folder: the top-level files and folders the formats write, and the
 * bundler's `scripts/`; not the ownership manifest in `.oac/` (npm adds package.json, a README and a
 * licence of the team's own by itself).
 */
function publishedFiles(files: readonly OutputFile[]): string[] {
  return [...new Set([...files.map((file) => file.path.split('/')[0]!), 'scripts'])].sort()
}
