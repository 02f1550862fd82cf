import oac from 'unplugin-oac/vite'
import { defineConfig } from 'vite'

// The agent tree goes to the project root ('.'), where the harnesses look for it.
export default defineConfig({
  plugins: [oac({ registry: './agents/registry.ts:registry', config: 'prod', target: '.' })],
})
