/**
 * Loaded with `node --import` into the measured bin (section 13): as the process exits, writes its
 * peak resident set size (`process.resourceUsage().maxRSS`, in kilobytes: the kernel's own high-water
 * mark, every page the process ever had resident at once) to the file named by TM_BENCH_PEAK_RSS.
 * Nothing else: the bin runs as users run it.
 */
import { writeFileSync } from 'node:fs';

const out = process.env.TM_BENCH_PEAK_RSS;
if (out) process.on('exit', () => writeFileSync(out, String(process.resourceUsage().maxRSS)));
