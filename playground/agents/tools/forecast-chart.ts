import { defineTool } from 'unplugin-oac'
import { z } from 'zod'
import { dailyForecast } from './forecast.ts'
import { png } from './png.ts'

const BAR = 6
const HEIGHT = 40

/** Colder blue, warmer red. */
function shade(celsius: number): [number, number, number] {
  const warmth = Math.max(0, Math.min(1, (celsius + 5) / 30))
  return [Math.round(255 * warmth), 64, Math.round(255 * (1 - warmth))]
}

export const forecastChart = defineTool({
  name: 'forecast_chart',
  description: 'Draw the daily highs of a city\'s forecast as a bar chart image.',
  input: z.object({
    city: z.string().min(1).describe('City name to look up'),
    days: z.number().int().min(1).max(7).default(5).describe('How many days to chart'),
  }),
  effects: { readOnly: true, idempotent: true },
  run({ city, days }, ctx) {
    const highs = dailyForecast(city, days).map((day) => day.celsius)
    // One bar per day, its height the high above -5 °C; a white background.
    const image = png(highs.length * BAR, HEIGHT, (x, y) => {
      const high = highs[Math.floor(x / BAR)]!
      const bar = Math.round(((high + 5) / 30) * HEIGHT)
      return x % BAR !== 0 && y >= HEIGHT - bar ? shade(high) : [255, 255, 255]
    })
    return ctx.result({
      value: `Daily highs for ${city}, day 1 to ${days}: ${highs.map((high) => `${high} °C`).join(', ')}.`,
      images: [{ data: image, mimeType: 'image/png' }],
      details: { city, highs, pixels: { width: highs.length * BAR, height: HEIGHT } },
    })
  },
})
