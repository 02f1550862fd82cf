import { posix } from 'node:path'
import type { AgentDefinition, Harness, RegistryDefinition } from '../define/types.js'
import type { ResolvedConfig } from './config.js'
import type { Findings } from './findings.js'
import { harness } from './harnesses/index.js'
import type { PluginLimit, PluginPart } from './harnesses/types.js'
import { DEFAULT_SERVER_NAME, type Plan, type PlannedAgent, type PlannedTool, type PluginInfo } from './plan.js'

/*
 * The target a tree is compiled into, one object per kind, resolved once from the plan (`targetOf`):
 * a project folder, a plugin folder (`--plugin`), a user's home (`--scope user`). Compile, the
 * emitters and the bundler ask it where scripts are, how a file written there names one, and what
 * the target cannot hold, rather than branching on the kind. The plan stays plain data: its `plugin`
 * and `scope` select the object, which holds functions and so is never part of the plan.
 */

/** The three kinds of target. */
export type TargetKind = 'project' | 'plugin' | 'home'

/** What selects and shapes a target: the plan's settings (compile's before there is a plan). */
export type TargetSettings = Pick<Plan, 'serverName' | 'plugin' | 'scope'>

interface TargetBase {
  readonly kind: TargetKind
  /**
   * The folder of the tool scripts and the MCP server, relative to the target: `scripts`, or
   * `scripts/<serverName>` for an app that names its own server, so that several apps of a monorepo
   * can share one target folder (and one `.mcp.json`) without claiming each other's scripts. In a
   * user's home, the server's own folder under `~/.local/share/oac/` (see `USER_DATA_FOLDER`).
   */
  readonly scriptsFolder: string
  /** A script (relative to the target) as a shell command names it. */
  commandPath(script: string): string
  /** A script (relative to the target) as the generated file at `from` names it, for `scriptUrl`. */
  scriptFrom(from: string, script: string): string
  /** The JS expression of the URL of the script that `name` (a JS expression) names as `scriptFrom` gave it. */
  scriptUrl(name: string): string
  /** The import lines `scriptUrl` needs, for the top of the generated file. */
  readonly scriptUrlImports: readonly string[]
  /** Where `scriptUrl` finds a script from, in words for a generated file's comments. */
  readonly scriptUrlBase: string
  /**
   * The start of a `node -e` script that sets `script` to the path of `relative` and exits with
   * `missing` and a message naming it when it is not there, where the target alone says where its
   * scripts are, whatever folder the harness runs the command in (a home). Absent where a command
   * finds them from the folder its harness names (a project's or plugin's variable) or walks up to.
   */
  readonly scriptLookup?: (relative: string, missing: number) => string
  /**
   * True when an agent's prompt may document a tool as a command (`node scripts/<tool>.mjs`), the
   * bash route: false in a plugin folder, whose scripts are not in the project the agent works in
   * (compile then lets in native tools alone).
   */
  readonly bashRoute: boolean
  /** How an agent's prompt introduces a tool's command. */
  readonly agentRunFrom: string
  /** How a skill's SKILL.md introduces a tool's command. */
  readonly skillRunFrom: string
  /** The copy of each tool's script a skill's folder holds (`<skill>/scripts/<tool>.mjs`), where the skill's commands need one. */
  readonly skillLauncher?: SkillLauncher
  /** True when harnesses are started in the target (or a folder below it) and find its files from there: a project. */
  readonly startedIn: boolean
  /** The name harness `id` gives our MCP server here: the plan's, or the one it makes of it for a plugin's server; the model's tool names and the hooks' matchers are made from it. */
  shownServerName(id: Harness): string
  /**
   * True when an agent's file here can hold hooks for that agent alone, where its harness scopes hooks
   * to agents (`hooks.scopesToAgents`): not in a plugin folder (Claude Code reads no `hooks` in a
   * plugin agent's file), whose hooks then run for every agent.
   */
  readonly agentHooks: boolean
  /** What harness `id` cannot take from here, each part with the warning compile gives when the registry has some of it. */
  limits(id: Harness): TargetLimit[]
}

/** A kind of definition a target may be unable to hold for a harness. */
export type TargetPart = PluginPart | 'tools'

/** A part a harness cannot take from a target, as the warning compile gives. */
export interface TargetLimit {
  part: TargetPart
  code: 'plugin-unsupported' | 'user-scope-left'
  message: string
  fix: string
}

/**
 * What a skill's copy of a script (`<skill>/scripts/<tool>.mjs`) starts: the target's script, found
 * relative to the copy, as node would start it.
 */
export interface SkillLauncher {
  /** Its generated comment's end: what it runs, and where. */
  runs(script: string): string
  /** The name of the folder it finds the script in, in its code. */
  folder: string
  /** True when it runs the tool in that folder, false in the folder it is run from. */
  chdir: boolean
}

/** A project folder: the files where each harness reads them in a project, scripts named from its folder. */
export interface ProjectTarget extends TargetBase {
  readonly kind: 'project'
}

/** A plugin folder: every format a selected harness installs from (src/emit/plugin/), scripts found from the plugin's root. */
export interface PluginTarget extends TargetBase {
  readonly kind: 'plugin'
  /** What its manifests call it. */
  readonly plugin: PluginInfo
}

/** A user's home: a project's files moved to where each harness reads them in a home, scripts named from the home folder. */
export interface HomeTarget extends TargetBase {
  readonly kind: 'home'
  /**
   * The home paths of the file at `path` in a project's tree: where each of `harnesses` that reads it
   * reads the same file in a home (its description's `userScope`), none for a file none of them reads
   * from a home, undefined when none says.
   */
  places(path: string, harnesses: readonly Harness[]): string[] | undefined
}

export type Target = ProjectTarget | PluginTarget | HomeTarget

/**
 * Where a user-scope install keeps what no harness reads directly (the scripts, the MCP server, the
 * harness-neutral prompts), relative to the home: the XDG data folder's default place, one folder per
 * server name, so two registries installed for one user keep apart. The harnesses' files reach it by
 * the home folder at run time (`os.homedir()`, `~`), so nothing written names an absolute path.
 */
export const USER_DATA_FOLDER = '.local/share/oac'

/** The harness-neutral prompts' folder in a project's tree; in a home it goes to the scripts' folder. */
const PROMPTS = 'prompts/'

/** Where agent prompts say their tools' commands run: a project's, from its folder; a user's, from the folder to work in. */
const RUN_FROM_PROJECT = 'Run it from the project folder:'
const RUN_FROM_ANY = 'Run it from the folder it should work in:'

const resolved = new WeakMap<TargetSettings, Target>()

/** The plan's target, resolved once per plan (or compile's settings). */
export function targetOf(settings: TargetSettings): Target {
  let target = resolved.get(settings)
  if (target === undefined) {
    target = settings.plugin ? pluginTarget(settings, settings.plugin) : settings.scope === 'user' ? homeTarget(settings) : projectTarget(settings)
    resolved.set(settings, target)
  }
  return target
}

/** A script relative to the generated file at `from`, as a URL relative to that file takes it. */
function relativeScript(from: string, script: string): string {
  const relative = posix.relative(posix.dirname(from), script)
  return relative.startsWith('.') ? relative : `./${relative}`
}

/** What a project and a plugin folder share: scripts in `scripts/`, found by generated files relative to themselves. */
function besideFiles(settings: TargetSettings) {
  return {
    scriptsFolder: settings.serverName === DEFAULT_SERVER_NAME ? 'scripts' : `scripts/${settings.serverName}`,
    commandPath: (script: string) => script,
    scriptFrom: relativeScript,
    scriptUrl: (name: string) => `new URL(${name}, import.meta.url)`,
    scriptUrlImports: [],
    scriptUrlBase: 'this file',
    agentRunFrom: RUN_FROM_PROJECT,
  }
}

function projectTarget(settings: TargetSettings): ProjectTarget {
  return {
    kind: 'project',
    ...besideFiles(settings),
    bashRoute: true,
    // A skill's folder holds a copy of each tool's script path, so `node scripts/<tool>.mjs` works read
    // either way: from the project folder, and (as harnesses tell their models to read a skill's
    // relative paths) from the skill's folder, which works from any folder.
    skillRunFrom: "Run it from the project folder, or from any folder with this skill's folder before `scripts/` (the skill's copy starts the same tool in the project folder):",
    skillLauncher: { runs: (script) => `runs the project's ${script} in the project folder, from any folder.`, folder: 'project', chdir: true },
    startedIn: true,
    shownServerName: () => settings.serverName,
    agentHooks: true,
    limits: () => [],
  }
}

function pluginTarget(settings: TargetSettings, plugin: PluginInfo): PluginTarget {
  return {
    kind: 'plugin',
    plugin,
    ...besideFiles(settings),
    bashRoute: false,
    // The tools' scripts are the plugin's: only the skill's copy finds them. The plugin folder is where
    // the harness installed it, not the user's work, so the copy runs the tool where it is run from.
    skillRunFrom: "Run it with this skill's folder before `scripts/`, from the folder the tool should work in:",
    skillLauncher: { runs: (script) => `runs the plugin's ${script} in the folder it is run from.`, folder: 'root', chdir: false },
    // A plugin folder is installed, not started in: the harness finds its files from the plugin's root.
    startedIn: false,
    shownServerName: (id) => harness(id).plugin.serverName(plugin.name, settings.serverName),
    agentHooks: false,
    limits: (id) => pluginLimits(settings, plugin, id),
  }
}

function homeTarget(settings: TargetSettings): HomeTarget {
  const scriptsFolder = `${USER_DATA_FOLDER}/${settings.serverName}`
  return {
    kind: 'home',
    scriptsFolder,
    // From `~`, which every harness's shell tool expands, so the command runs from any folder.
    commandPath: (script) => `~/${script}`,
    scriptFrom: (_from, script) => script,
    // From the home folder, which a config folder linked from elsewhere (a dotfiles checkout) does not change.
    scriptUrl: (name) => `pathToFileURL(join(homedir(), ${name}))`,
    scriptUrlImports: [`import { homedir } from "node:os"`, `import { join } from "node:path"`, `import { pathToFileURL } from "node:url"`],
    scriptUrlBase: 'the home folder',
    scriptLookup: homeScriptLookup,
    bashRoute: true,
    agentRunFrom: RUN_FROM_ANY,
    // A user's skill needs no copies: its commands name the scripts from `~`, which works from any folder.
    skillRunFrom: 'Run it from the folder the tool should work in:',
    // A user's home is read from any folder.
    startedIn: false,
    shownServerName: () => settings.serverName,
    agentHooks: true,
    limits: homeLimits,
    places: (path, harnesses) => homePaths(harnesses, scriptsFolder, path),
  }
}

/**
 * How a user-scope install's MCP server entries and hook commands find their scripts from whatever
 * folder the harness runs in: in the home folder (`os.homedir()`).
 */
function homeScriptLookup(relative: string, missing: number): string {
  return [
    `const { existsSync } = require("node:fs"), { homedir } = require("node:os"), { join } = require("node:path");`,
    `const script = join(homedir(), ${JSON.stringify(relative)});`,
    `if (!existsSync(script)) { console.error(script + " not found: install the agent build for this user again (--scope user)."); process.exit(${missing}) }`,
  ].join(' ')
}

/**
 * A project file's places in a home. One project file may become two (`.mcp.json` is Claude Code's
 * `~/.claude.json` and Copilot's `~/.copilot/mcp-config.json`) or none (VS Code's, which a home does
 * not hold).
 */
function homePaths(harnesses: readonly Harness[], scriptsFolder: string, path: string): string[] | undefined {
  if (path.startsWith(PROMPTS)) return [`${scriptsFolder}/${path}`]
  const homes = harnesses.flatMap((id) => moved(harness(id).userScope.paths, path) ?? [])
  if (homes.length > 0) return homes
  const left = harnesses.some((id) => harness(id).userScope.left?.some((entry) => isUnder(path, entry.project)))
  return left ? [] : undefined
}

function moved(paths: ReadonlyArray<readonly [string, string]>, path: string): string | undefined {
  for (const [project, home] of paths) if (isUnder(path, project)) return home + path.slice(project.length)
  return undefined
}

/** True when `path` is the file `prefix` names, or lies in the folder it names (ending in `/`). */
function isUnder(path: string, prefix: string): boolean {
  return prefix.endsWith('/') ? path.startsWith(prefix) : path === prefix
}

const PART_NAMES: Record<PluginPart, string> = {
  agents: 'agents',
  hooks: 'hooks',
  skills: 'skills',
  commands: 'commands',
  allow: 'approval rules that let a tool run unasked',
  ask: 'approval rules that make a tool always ask',
  mcpServers: 'MCP servers',
}

/** The parts of a plugin folder harness `id` cannot take (its description's `plugin.unsupported`). */
function pluginLimits(settings: TargetSettings, plugin: PluginInfo, id: Harness): TargetLimit[] {
  const { title, plugin: support } = harness(id)
  const named = (text: string) => text.replaceAll('<server>', settings.serverName).replaceAll('<plugin>', plugin.name)
  return (Object.entries(support.unsupported ?? {}) as Array<[PluginPart, PluginLimit]>).map(([part, limit]) => ({
    part,
    code: 'plugin-unsupported',
    message: `${title} cannot take the plugin's ${PART_NAMES[part]}: ${named(limit.says)}.`,
    fix: named(limit.fix),
  }))
}

/** The project files of harness `id` a home leaves out (its description's `userScope.left`: VS Code's, which live in its profile folder). */
function homeLimits(id: Harness): TargetLimit[] {
  const { title, userScope } = harness(id)
  return (userScope.left ?? []).map((left) => ({
    part: left.part,
    code: 'user-scope-left',
    message: `A user-scope install leaves out ${left.project}, which ${title} reads in a project: ${left.says}.`,
    fix: `Compile into the project as well (without --scope user) where those ${left.part} are wanted, or add them to that profile by hand.`,
  }))
}

/**
 * A warning per selected harness and part of the registry the target cannot hold for it (`limits`),
 * where the registry has some of that part: `present` names how many.
 */
export function warnTargetLimits(registry: RegistryDefinition, config: ResolvedConfig, present: Record<TargetPart, number>, findings: Findings): void {
  const target = targetOf(config)
  for (const id of config.harnesses) {
    for (const limit of target.limits(id)) if (present[limit.part] > 0) findings.warning(limit.code, limit.message, limit.fix, registry.source)
  }
}

/**
 * Where a target has no bash route (a plugin folder), every tool an agent is given must reach it natively (MCP server, shim, extension):
 * the bash route's `node scripts/<tool>.mjs` names a path relative to the project, where a plugin's
 * scripts are not. Each agent's tool that would be documented only as a command is reported.
 */
export function checkPluginRoutes(config: ResolvedConfig, tools: readonly PlannedTool[], agents: ReadonlyArray<{ definition: AgentDefinition; planned: PlannedAgent }>, findings: Findings): void {
  if (targetOf(config).bashRoute) return
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  for (const { definition, planned } of agents) {
    for (const name of planned.tools) {
      const tool = byName.get(name)
      if (!tool) continue
      const why = !config.nativeTools
        ? 'native tools are off (nativeTools: false), so it is documented as a command'
        : !tool.json
          ? 'the tool has no JSON contract (json: false), so it has no native form'
          : planned.toolFormats[name] === 'bash'
            ? 'the agent documents it as a command (format "bash")'
            : undefined
      if (!why) continue
      findings.error(
        'plugin-tool-not-native',
        `Agent "${planned.name}" is given tool "${name}" as a command (\`node ${tool.script}\`), which does not run from a plugin folder: the path is relative to a project, and a plugin's scripts live where the harness installed it. Here ${why}.`,
        'Let the tool reach the agent natively (native tools on, json: true on the tool, its format "json" or "both" for the agent), or compile into a project folder (--target) instead of --plugin.',
        definition.source,
      )
    }
  }
}
