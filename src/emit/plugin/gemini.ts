import type { PluginFormatEmitter } from './index.js'

// PLACEHOLDER until the gemini format lands (this session): writes nothing yet.
export const emitGeminiExtension: PluginFormatEmitter = () => ({ files: [] })
