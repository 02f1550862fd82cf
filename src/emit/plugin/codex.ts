import type { PluginFormatEmitter } from './index.js'

// PLACEHOLDER until the codex format lands (this session): writes nothing yet.
export const emitCodexPlugin: PluginFormatEmitter = () => ({ files: [] })
