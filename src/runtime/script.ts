/** What a tool's code file (`scripts/tools/<tool>.mjs`) imports of the runtime, built into one vendor file for every tool. */
export { invokeTool, pickTool } from './invoke.js'
export { runToolCli } from './tool-cli.js'
