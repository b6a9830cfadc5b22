import { existsSync, watch, type FSWatcher } from 'node:fs';
import { extname } from 'node:path';
import { messageOf } from '../base/errors.js';

/**
 * What a catalogue watcher reports: the tools changed (for one session only when `sessionId` is
 * set), or the edited config does not load (the old tools stay).
 */
export type CatalogChange = { changed: true; sessionId?: string } | { error: string };

const YAML = new Set(['.yaml', '.yml']);
const SETTLE_MS = 150;

/**
 * Watches the directories config files live in and reloads the catalogue when a YAML file in
 * them changes. Editors write in bursts (truncate, write, rename), so changes settle for a moment
 * before one reload; a reload that finds the same config text reports nothing. Watching starts
 * with the first listener and stops with the last.
 */
export class ConfigWatcher {
  private readonly listeners = new Set<(change: CatalogChange) => void>();
  private watchers: FSWatcher[] = [];
  private readonly watched = new Set<string>();
  private timer?: NodeJS.Timeout;
  private running = Promise.resolve();

  constructor(
    private readonly dirs: () => string[],
    private readonly reload: () => Promise<boolean>,
  ) {}

  subscribe(listener: (change: CatalogChange) => void): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.start();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.close();
    };
  }

  close(): void {
    clearTimeout(this.timer);
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
    this.watched.clear();
  }

  private start(): void {
    this.watchNewDirs();
  }

  /**
   * Watches each config folder that exists and is not watched yet. A folder made while serving (the
   * first `blueprint install` makes `.factorly/blueprints/`) shows up as a change in its parent, so
   * any change that is not a YAML file looks for new folders, and one found is read at once: its
   * files may be written before its watcher starts.
   */
  private watchNewDirs(): boolean {
    let added = false;
    for (const dir of new Set(this.dirs())) {
      if (this.watched.has(dir) || !existsSync(dir)) continue;
      const watcher = watch(dir, { persistent: false }, (_event, file) => {
        if (file === null || YAML.has(extname(file.toString()))) this.schedule();
        else if (this.watchNewDirs()) this.schedule();
      });
      watcher.on('error', () => {
        watcher.close();
        this.watched.delete(dir);
      });
      this.watchers.push(watcher);
      this.watched.add(dir);
      added = true;
    }
    return added;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      // One reload at a time, in order: a burst during a reload gets its own reload after it.
      this.running = this.running.then(() => this.reloadAndTell());
    }, SETTLE_MS);
  }

  private async reloadAndTell(): Promise<void> {
    let change: CatalogChange | undefined;
    try {
      if (await this.reload()) change = { changed: true };
    } catch (error) {
      change = { error: messageOf(error) };
    }
    if (change) for (const listener of this.listeners) listener(change);
  }
}
