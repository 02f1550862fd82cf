import manifest from 'virtual:oac'

// The app lists its own agents and tools from the compiled manifest.
const list = document.createElement('ul')
for (const agent of manifest.agents) {
  const item = document.createElement('li')
  item.textContent = `${agent.name}: ${agent.description} (tools: ${agent.tools.join(', ') || 'none'})`
  list.append(item)
}
document.querySelector('#agents')?.append(list)
