// Preloaded with `node --import` into a child that runs the real `oac` CLI: at exit it reports the
// process's peak resident set size (KiB on Linux and macOS) on stderr, for peak_rss_mb_1000_tools.
process.on('exit', () => {
  process.stderr.write(`\noac-bench:max-rss-kib ${process.resourceUsage().maxRSS}\n`)
})
