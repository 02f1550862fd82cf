// `npx webpack -c playground/webpack.config.mjs` (with webpack-cli): the playground app built with webpack,
// and its agent tree written into playground/ (the same tree `vite build` writes; see vite.config.ts).
import { fileURLToPath } from 'node:url'
import { transform } from 'esbuild'
import { createWebpackPlugin } from 'unplugin'
import oac from 'unplugin-oac/webpack'

const root = fileURLToPath(new URL('.', import.meta.url))

// webpack reads no TypeScript by itself; this strips the types with esbuild (ts-loader does the same job).
const typescript = createWebpackPlugin(() => ({
  name: 'playground-typescript',
  transform: {
    filter: { id: /\.ts$/ },
    handler: async (code, id) => (await transform(code, { loader: 'ts', sourcefile: id })).code,
  },
}))

export default {
  // The plugin's root defaults to webpack's context, so './agents/registry.ts' and target '.' resolve from here.
  context: root,
  mode: 'production',
  entry: './src/main.ts',
  output: { path: `${root}dist/webpack` },
  resolve: { extensions: ['.ts', '.js'] },
  plugins: [typescript(), oac({ registry: './agents/registry.ts:registry', config: 'prod', target: '.' })],
}
