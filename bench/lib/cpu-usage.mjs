// CPU time of another process, read from /proc (Linux): the scheduler's own account in nanoseconds
// (`schedstat`), for its main thread, all its threads, and its descendants (the upstream it spawned).
// CPU time, unlike wall time, is what the process itself did, however busy the machine is.
import { readdirSync, readFileSync } from 'node:fs';

const read = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

const runNs = (pid, tid) => Number(read(`/proc/${pid}/task/${tid}/schedstat`)?.split(' ')[0] ?? 0);

/** Nanoseconds of CPU `pid` has run: its main thread, and the sum over its threads (those alive now). */
function ownCpu(pid) {
  let tids = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    // gone
  }
  return { main: runNs(pid, pid), all: tids.reduce((sum, tid) => sum + runNs(pid, tid), 0) };
}

/** The pids `pid` spawned, and theirs, while they live. */
function descendantsOf(pid) {
  const found = [];
  const tasks = read(`/proc/${pid}/task/${pid}/children`)?.trim();
  for (const child of tasks ? tasks.split(/\s+/).map(Number) : []) found.push(child, ...descendantsOf(child));
  return found;
}

/** A reading of `pid`'s CPU (ns): `main` thread, `all` its threads, `children` its descendants' threads. */
export function cpuOf(pid) {
  const own = ownCpu(pid);
  const children = descendantsOf(pid).reduce((sum, child) => sum + (ownCpu(child).all || 0), 0);
  return { ...own, children };
}

/** The CPU spent between two readings, in µs per call. */
export function cpuPerCall(before, after, calls) {
  const per = (key) => Math.round((after[key] - before[key]) / 1000 / calls);
  return { mainUs: per('main'), processUs: per('all'), upstreamUs: per('children') };
}
