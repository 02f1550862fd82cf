import { join } from 'node:path'
import type { DoctorFix, DoctorNames, DoctorPlace, DoctorReading } from './types.js'

/* What several harnesses' `doctor` entries share: where a settings folder is, and the plugin package opencode and Kilo install. */

/** A settings folder in the user's home, or where the harness's own variable moves it (`CODEX_HOME`, `COPILOT_HOME`). */
export function settingsFolder(place: DoctorPlace, variable: string, folder: string): string {
  return place.env[variable] || join(place.home, folder)
}

/** The user's config folder of an XDG harness (`$XDG_CONFIG_HOME/<name>`, by default `~/.config/<name>`). */
export function xdgConfigFolder(place: DoctorPlace, name: string): string {
  return join(place.env.XDG_CONFIG_HOME || join(place.home, '.config'), name)
}

/** Text without terminal colours (Qwen Code colours its list's marks). */
export function plain(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, '')
}

/** The status a `[<mark> ]<server>: <command> - <status>` line of an `mcp list` gives our server, if it lists it. */
export function listedStatus(output: string, server: string): string | undefined {
  // The mark (Gemini CLI's and Qwen Code's `✓`, `○`, `●`) is absent in Claude Code's list.
  return plain(output)
    .split('\n')
    .find((line) => line.startsWith(`${server}: `) || /^\S+ /.exec(line)?.[0].length === line.indexOf(`${server}: `))
    ?.replace(/^.* - /, '')
}

/**
 * opencode and Kilo install their plugin package into each config folder they load tools from, on
 * start: offline, or behind a registry mirror without that version, that waits and fails, and no
 * project tool loads. Installed once by the user, it is found there and nothing is fetched.
 */
export function pluginPackageNeeds(place: DoctorPlace, folders: string[], spec: string, says: string): Array<{ file: string; fix: DoctorFix }> {
  const name = spec.replace(/(?<=.)@.*$/, '')
  return folders.map((folder) => ({
    file: join(folder, 'node_modules', ...name.split('/'), 'package.json'),
    fix: {
      says: `has no ${name} in ${folder}, ${says}`,
      command: { cwd: place.target, argv: ['npm', 'install', '--prefix', folder, '--no-audit', '--no-fund', spec] },
    },
  }))
}

/** The reading of a `debug agent` tools map (opencode, Kilo): each of our tools must be `true` in it. */
export function readToolsMap(stdout: string, names: DoctorNames, via: string): DoctorReading {
  let tools: Record<string, unknown> | undefined
  try {
    tools = (JSON.parse(stdout) as { tools?: Record<string, unknown> }).tools
  } catch {
    return { ready: false, problem: `printed no agent (${via}): ${stdout.trim().split('\n')[0] ?? 'nothing'}` }
  }
  const missing = names.tools.filter((tool) => tools?.[tool] !== true)
  if (missing.length > 0) return { ready: false, problem: `does not give its agent the tools ${missing.join(', ')} (${via})` }
  return { ready: true, sees: `${names.tools.length} tool${names.tools.length === 1 ? '' : 's'} (${via})` }
}
