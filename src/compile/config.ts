import { type ConfigProfile, type DiagnosticLevel, type Harness, HARNESSES, type RegistryDefinition } from '../define/types.js'
import { resolveDiagnosticLevels } from './diagnostic-levels.js'
import type { Findings } from './findings.js'
import { serverNameProblem } from './names.js'
import { DEFAULT_SERVER_NAME, type Plan, type PluginInfo } from './plan.js'
import { checkPluginInfo } from './plugin.js'

export interface PlanOptions {
  /** The project root: source paths in the plan are relative to it. */
  root: string
  /** The config profile to use (see `resolveConfig` for the default). */
  config?: string
  /** Harnesses to emit (default: the profile's, else all). */
  harnesses?: Harness[]
  /** Emit native tool forms (default: the profile's, else true). */
  nativeTools?: boolean
  /** The MCP server's name (default `oac-tools`). */
  serverName?: string
  /** How native shims reach a tool (default `process`). */
  bridge?: 'process' | 'inline'
  /** Merge the MCP block into the project's `.codex/config.toml`, the route to our tools for every Codex agent (default true). */
  codexConfig?: boolean
  /** Compile into a plugin folder of this identity (the driver fills its defaults). */
  plugin?: PluginInfo
  /** `user`: compile into a user's home rather than a project (default `project`). */
  scope?: 'project' | 'user'
  /** Levels of warning codes, over the profile's `diagnostics` code by code (`--diagnostic`, the plugin's option). */
  diagnostics?: Readonly<Record<string, DiagnosticLevel>>
}

export type ResolvedConfig = Pick<Plan, 'config' | 'harnesses' | 'nativeTools' | 'serverName' | 'bridge' | 'env' | 'codexConfig' | 'plugin' | 'scope' | 'diagnosticLevels'> & {
  profile: ConfigProfile
}

const DEFAULT_PROFILE = 'default'
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const BRIDGES: ReadonlyArray<Plan['bridge']> = ['process', 'inline']

function isHarness(value: unknown): value is Harness {
  return (HARNESSES as readonly unknown[]).includes(value)
}

/** Known harnesses of `list` in the canonical order of HARNESSES; unknown ones are reported. */
function harnessList(list: unknown, origin: string, registry: RegistryDefinition, findings: Findings): Harness[] {
  if (!Array.isArray(list)) {
    findings.error('config-harness-unknown', `${origin} must be a list of harnesses.`, `List some of: ${HARNESSES.join(', ')}.`, registry.source)
    return []
  }
  for (const value of list.filter((h) => !isHarness(h))) {
    findings.error('config-harness-unknown', `${origin} names "${String(value)}", which is not a harness.`, `Use some of: ${HARNESSES.join(', ')}.`, registry.source)
  }
  return HARNESSES.filter((harness) => list.includes(harness))
}

/**
 * The settings of this compile. The profile is `registry.configs[options.config]`; with no config
 * named, the profile called `default` when the registry has one, an empty profile of that name when
 * it has no configs at all (all harnesses, native tools on, no models, no env), and an error when it
 * has configs but no `default`. Options override the profile's values.
 */
export function resolveConfig(registry: RegistryDefinition, options: PlanOptions, findings: Findings): ResolvedConfig {
  const configs = registry.configs ?? {}
  const known = Object.keys(configs)
  const name = options.config ?? DEFAULT_PROFILE
  let profile: ConfigProfile = {}
  if (Object.hasOwn(configs, name)) {
    profile = configs[name] ?? {}
  } else if (options.config !== undefined) {
    findings.error(
      'config-unknown',
      `The registry has no config named "${options.config}". ${known.length ? `Known configs: ${known.join(', ')}.` : 'It defines no configs.'}`,
      known.length ? `Use one of: ${known.join(', ')}; or add "${options.config}" to defineRegistry({ configs }).` : `Add configs: { ${options.config}: { ... } } to defineRegistry, or compile without a config.`,
      registry.source,
    )
  } else if (known.length > 0) {
    // An empty profile in place of a missing `default` would compile a tree no build of the project makes.
    findings.error(
      'config-required',
      `The registry defines configs (${known.join(', ')}) but none named "${DEFAULT_PROFILE}", and no config was chosen.`,
      `Choose one: --config ${known[0]} on the command line, config: '${known[0]}' in the plugin options; or add a "${DEFAULT_PROFILE}" config to defineRegistry({ configs }).`,
      registry.source,
    )
  }

  const harnesses =
    options.harnesses !== undefined
      ? harnessList(options.harnesses, 'The harnesses option', registry, findings)
      : profile.harnesses !== undefined
        ? harnessList(profile.harnesses, `Config "${name}"'s harnesses`, registry, findings)
        : [...HARNESSES]

  const serverName = options.serverName ?? DEFAULT_SERVER_NAME
  const serverProblem = serverNameProblem(serverName, harnesses)
  if (serverProblem) {
    findings.error(
      'server-name-invalid',
      `The MCP server name "${serverName}" ${serverProblem}.`,
      harnesses.includes('gemini') ? 'Choose a short name of letters, digits and "-" (no "_" with gemini), e.g. "oac-tools".' : 'Choose a short name of letters, digits, "_" and "-", e.g. "oac-tools".',
      registry.source,
    )
  }

  const bridge = options.bridge ?? 'process'
  if (!BRIDGES.includes(bridge)) {
    findings.error('bridge-invalid', `The bridge "${String(bridge)}" is not one of ${BRIDGES.join(', ')}.`, 'Use "process" (a process per call) or "inline" (import the bundled tool).')
  }

  const env: string[] = []
  for (const variable of profile.env ?? []) {
    if (typeof variable !== 'string' || !ENV_NAME.test(variable)) {
      findings.error(
        'config-env-invalid',
        `Config "${name}" lists "${String(variable)}" in env, which is not an environment variable name.`,
        'List variable names only (letters, digits and "_", not starting with a digit); values come from the environment at run time.',
        registry.source,
      )
    } else if (!env.includes(variable)) {
      env.push(variable)
    }
  }

  if (options.plugin && options.scope === 'user') {
    findings.error('scope-plugin', 'A plugin folder is installed by each harness, not into a home: the plugin option and scope "user" exclude each other.', 'Give one of them: a plugin folder to publish, or scope "user" to install for yourself.', registry.source)
  }

  const diagnosticLevels = resolveDiagnosticLevels(profile.diagnostics, options.diagnostics, name, registry, findings)
  return {
    config: name,
    profile,
    harnesses,
    nativeTools: options.nativeTools ?? profile.nativeTools ?? true,
    serverName,
    bridge,
    env,
    codexConfig: options.codexConfig ?? true,
    ...(options.plugin && { plugin: checkPluginInfo(options.plugin, registry, findings) }),
    ...(options.scope === 'user' && { scope: 'user' as const }),
    ...(diagnosticLevels && { diagnosticLevels }),
  }
}
