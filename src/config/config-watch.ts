import { existsSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
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
 * them changes, or a file an entry names (`code_file`, `included`). Editors write in bursts
 * (truncate, write, rename), so changes settle for a moment before one reload; a reload that finds
 * the same config text reports nothing. Watching starts with the first listener and stops with the
 * last; after a reload it follows the files the config now names.
 */
export class ConfigWatcher {
  private readonly listeners = new Set<(change: CatalogChange) => void>();
  private watchers: FSWatcher[] = [];
  private readonly watched = new Set<string>();
  /** The files the config names (`code_file`), by folder. */
  private names = new Map<string, Set<string>>();
  private timer?: NodeJS.Timeout;
  private running = Promise.resolve();

  constructor(
    private readonly dirs: () => string[],
    private readonly reload: () => Promise<boolean>,
    private readonly included: () => readonly string[] = () => [],
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
    this.unwatch();
  }

  private unwatch(): void {
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
    this.watched.clear();
  }

  private start(): void {
    this.names = new Map();
    for (const file of this.included())
      this.names.set(dirname(file), (this.names.get(dirname(file)) ?? new Set()).add(basename(file)));
    this.watchNewDirs();
  }

  /**
   * Watches each config folder (and each folder of a file the config names) that exists and is not
   * watched yet. A folder made while serving (the first `blueprint install` makes
   * `.factorly/blueprints/`) shows up as a change in its parent, so any other change looks for new
   * folders, and one found is read at once: its files may be written before its watcher starts.
   */
  private watchNewDirs(): boolean {
    let added = false;
    for (const dir of new Set([...this.dirs(), ...this.names.keys()])) {
      if (this.watched.has(dir) || !existsSync(dir)) continue;
      const watcher = watch(dir, { persistent: false }, (event, file) => {
        const name = file?.toString();
        if (name === undefined || YAML.has(extname(name)) || this.names.get(dir)?.has(name)) this.schedule();
        // Only a name coming or going can be a new folder: the log's own writes beside the config
        // (`.factorly/events.lmdb`, a `change` on every append) are not looked into.
        else if (event === 'rename' && this.watchNewDirs()) this.schedule();
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
    if (change && 'changed' in change && this.listeners.size > 0) {
      // The files the config names may have changed with it (a change that came meanwhile stays scheduled).
      this.unwatch();
      this.start();
    }
    if (change) for (const listener of this.listeners) listener(change);
  }
}
