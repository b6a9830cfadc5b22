// Preloaded (`node --import`) into the processes a bench spawns: at exit each writes its peak
// resident set size (KiB, getrusage) to `$BENCH_RSS_DIR/<pid>`, so the bench can report the largest.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.BENCH_RSS_DIR;
if (dir)
  process.on('exit', () => writeFileSync(join(dir, String(process.pid)), String(process.resourceUsage().maxRSS)));
