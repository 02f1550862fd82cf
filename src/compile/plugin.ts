import type { RegistryDefinition } from '../define/types.js'
import type { Findings } from './findings.js'
import { KEBAB_NAME, NAME_CAP } from './names.js'
import type { PluginInfo } from './plan.js'

// Semantic Versioning 2.0.0's own pattern (semver.org), which every manifest's `version` follows.
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/

/**
 * The plugin's identity as given, each field checked against what every manifest accepts; a bad one is
 * reported. The name: the strictest of the formats', Claude Code's (kebab-case, as a skill's), which
 * npm, Gemini CLI, Codex and pi all take as well.
 */
export function checkPluginInfo(info: PluginInfo, registry: RegistryDefinition, findings: Findings): PluginInfo {
  if (!KEBAB_NAME.test(info.name) || info.name.length > NAME_CAP) {
    const suggestion = info.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, NAME_CAP) || 'my-agents'
    findings.error(
      'plugin-name-invalid',
      `The plugin name "${info.name}" is not one every harness takes: lowercase letters, digits and single hyphens, at most ${NAME_CAP} characters (Claude Code's rule for plugin names, which npm and the other manifests accept too).`,
      `Name it e.g. "${suggestion}": --plugin-name ${suggestion} on the command line, or plugin: { name: '${suggestion}' } in the build plugin's options (the default is the project's package.json name).`,
      registry.source,
    )
  }
  if (!SEMVER.test(info.version)) {
    findings.error(
      'plugin-version-invalid',
      `The plugin version "${info.version}" is not a semantic version (major.minor.patch, e.g. 1.0.0), which the manifests and npm require.`,
      "Give one with --plugin-version 1.0.0 on the command line, or plugin: { version: '1.0.0' } in the build plugin's options (the default is the project's package.json version).",
      registry.source,
    )
  }
  return { ...info, description: info.description.replace(/\s+/g, ' ').trim() }
}
