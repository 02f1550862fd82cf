// Types for the `virtual:oac` module (and `~oac`, its alias that no bundler reads as a URL scheme).
// Add them with `"types": ["unplugin-oac/client"]` in tsconfig.json, or
// `/// <reference types="unplugin-oac/client" />` in a .d.ts file of your app.

declare namespace OacClient {
  type Harness = 'opencode' | 'claude' | 'codex' | 'pi' | 'omp' | 'gemini' | 'copilot' | 'qwen' | 'kilo' | 'cline'
  type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

  interface Agent {
    name: string
    description: string
    mode: 'subagent' | 'primary' | 'all'
    /** Names of the agent's tools, in definition order. */
    tools: string[]
    /** The model id per harness; absent = the harness's default. */
    model: Partial<Record<Harness, string>>
  }

  interface Tool {
    name: string
    description: string
    /** True when the tool has a JSON contract (native harness forms and MCP). */
    json: boolean
    schemaKind: 'zod' | 'typebox'
    /** The canonical JSON Schema of the tool's input. */
    schema: { [key: string]: JsonValue }
    /** The bundled tool script, relative to the target: `scripts/<tool>.mjs`. */
    script: string
  }

  interface Manifest {
    /** The selected config profile. */
    config: string
    harnesses: Harness[]
    nativeTools: boolean
    /** The MCP server's name in `.mcp.json` and the Codex TOML. */
    serverName: string
    agents: Agent[]
    tools: Tool[]
    /** Every generated file, relative to the target. */
    files: string[]
  }
}

declare module 'virtual:oac' {
  const manifest: OacClient.Manifest
  export default manifest
  export const config: OacClient.Manifest['config']
  export const harnesses: OacClient.Manifest['harnesses']
  export const nativeTools: OacClient.Manifest['nativeTools']
  export const serverName: OacClient.Manifest['serverName']
  export const agents: OacClient.Manifest['agents']
  export const tools: OacClient.Manifest['tools']
  export const files: OacClient.Manifest['files']
  export type Manifest = OacClient.Manifest
  export type Agent = OacClient.Agent
  export type Tool = OacClient.Tool
}

declare module '~oac' {
  export * from 'virtual:oac'
  export { default } from 'virtual:oac'
}
