import { MCP_SERVER_ENTRY } from '../bundle/entries.js'
import { type Plan, scriptsFolder } from '../compile/plan.js'
import { jsString } from '../emit/codegen/escape.js'

/**
 * The bundled MCP server of the server named `serverName`, relative to the target folder. It is
 * CommonJS, loaded with `require`: a process's first ES module import first sets up Node's ES module
 * loader (about 8 ms on a 2-core machine), which the server's start does not need (tool scripts,
 * which are ES modules, load on their first call).
 */
export function mcpServerScript(plan: Pick<Plan, 'serverName' | 'scope'>): string {
  return `${scriptsFolder(plan)}/${MCP_SERVER_ENTRY}.cjs`
}

/**
 * A one-line CommonJS script, run with `node -e`, that starts the server from any working
 * directory at or below the target folder.
 *
 * Why not plain `node scripts/mcp_tools_server.cjs`: the harnesses start the server in the folder
 * the user is working in, not where the config file is. Claude Code finds `.mcp.json` in a parent
 * folder but starts the server in the subfolder it was launched from (and does not expand its own
 * `CLAUDE_PROJECT_DIR` in `args`); Codex starts a thread's servers in the thread's folder, which
 * may be a subfolder too. A relative script path fails there, and an absolute one would tie the
 * generated tree to one checkout. So the launcher walks up from the working directory to the
 * folder that holds the server script, makes that the working directory (tools then see the same
 * `ctx.cwd` as on the bash route, which runs from the target folder), and loads the server.
 * Checked with the real `claude mcp list` and `codex app-server` from the target folder and from
 * a subfolder (test/harness/claude-codex.test.ts).
 */
export function mcpLauncherSource(plan: Pick<Plan, 'serverName' | 'scope'>): string {
  const script = jsString(mcpServerScript(plan))
  // In a user's home the server is found from the home folder, and tools work in the harness's folder.
  if (plan.scope === 'user') return `${homeScriptLookup(mcpServerScript(plan), 1)} require(script)`
  return [
    `const { existsSync } = require('node:fs'); const { dirname, join } = require('node:path');`,
    `const script = ${script}; let dir = process.cwd();`,
    `while (!existsSync(join(dir, script))) {`,
    `if (dirname(dir) === dir) { console.error(script + ' not found in ' + process.cwd() + ' or any folder above it: run the agent build first.'); process.exit(1) }`,
    `dir = dirname(dir) }`,
    `process.chdir(dir); require(join(dir, script))`,
  ].join(' ')
}

/**
 * The start of a `node -e` script that sets `script` to `relative` in the home folder (`os.homedir()`),
 * and exits with `missing` and a message naming it when it is not there: how a user-scope install's
 * MCP server entries and hook commands find their scripts from whatever folder the harness runs in.
 */
export function homeScriptLookup(relative: string, missing: number): string {
  return [
    `const { existsSync } = require("node:fs"), { homedir } = require("node:os"), { join } = require("node:path");`,
    `const script = join(homedir(), ${JSON.stringify(relative)});`,
    `if (!existsSync(script)) { console.error(script + " not found: install the agent build for this user again (--scope user)."); process.exit(${missing}) }`,
  ].join(' ')
}

/** `command` and `args` that start the bundled MCP server, for `.mcp.json` and Codex TOML. */
export function mcpServerCommand(plan: Pick<Plan, 'serverName' | 'scope'>): { command: string; args: string[] } {
  return { command: 'node', args: ['-e', mcpLauncherSource(plan)] }
}
