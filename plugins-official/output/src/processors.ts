import type { OutputContext, OutputProcessor, ToolDefinition } from 'factorly';
import { applyFilter } from './apply-filter.js';
import { compileFilter, type FilterSpec } from './filter-spec.js';
import { capContent } from './content-cap.js';
import { collapseBlankLines, compactJson, foldRepeatedLines, stripAnsi } from './text-stages.js';
import { truncateMiddle } from './truncate.js';

/**
 * Orders of the stages. A secret scrubber (another plugin) should run before all of them (order
 * below 100) so a pipe command never sees a secret; truncation runs last.
 */
export const ORDER = { clean: 100, filter: 200, compress: 300, truncate: 900 } as const;

export const COMPRESS_MODES = ['json', 'logs', 'all', 'none'] as const;
type CompressMode = (typeof COMPRESS_MODES)[number];

/** The tool's `compress:` setting (checked against COMPRESS_MODES when the config loaded). */
const compressOf = (tool: ToolDefinition): CompressMode | undefined =>
  tool.settings?.compress as CompressMode | undefined;

/** Output processing runs for a tool that asks for it: `compress`, `filter` or `max_output`. */
function shapes(context: OutputContext): boolean {
  const { tool } = context;
  return (
    (context.stream ?? 'output') === 'output' &&
    (compressOf(tool) !== undefined || tool.settings?.filter !== undefined || tool.maxOutput !== undefined)
  );
}

/** Compression asked for (`none` is no compression: the output stays byte for byte what the tool wrote). */
const compressing = (context: OutputContext): boolean =>
  compressOf(context.tool) !== undefined && compressOf(context.tool) !== 'none';

/** ANSI stripping and blank-line folding, part of every compression mode. */
export const cleanProcessor: OutputProcessor = {
  name: 'clean',
  order: ORDER.clean,
  process: (text, context) => (shapes(context) && compressing(context) ? collapseBlankLines(stripAnsi(text)) : text),
};

const compiled = new WeakMap<ToolDefinition, FilterSpec>();

function filterOf(tool: ToolDefinition): FilterSpec | undefined {
  const written = tool.settings?.filter as Record<string, unknown> | undefined;
  if (!written) return undefined;
  let filter = compiled.get(tool);
  if (!filter) {
    filter = compileFilter(written).filter;
    compiled.set(tool, filter);
  }
  return filter;
}

/** The tool's `filter:` stages (checked at load time, see plugin.ts, so a bad regex or JSONPath is a config error). */
export const filterProcessor: OutputProcessor = {
  name: 'filter',
  order: ORDER.filter,
  // Answers at once when there is nothing to filter, so a scrub inside an event-log write can use it.
  process: (text, context) => {
    const filter = shapes(context) ? filterOf(context.tool) : undefined;
    return filter ? applyFilter(text, filter) : text;
  },
};

/** `compress: json | logs | all` (none: off). */
export const compressProcessor: OutputProcessor = {
  name: 'compress',
  order: ORDER.compress,
  process: (text, context) => {
    const mode = compressOf(context.tool);
    if (!shapes(context) || !compressing(context)) return text;
    const compacted = mode === 'json' || mode === 'all' ? compactJson(text) : text;
    return mode === 'logs' || mode === 'all' ? foldRepeatedLines(compacted) : compacted;
  },
};

/**
 * `max_output` bytes, cut in the middle at character boundaries with a marker naming the bytes
 * removed; an MCP result's blocks share the budget (see capContent).
 */
export const truncateProcessor: OutputProcessor = {
  name: 'truncate',
  order: ORDER.truncate,
  process: (text, context) =>
    shapes(context) && context.tool.maxOutput !== undefined ? truncateMiddle(text, context.tool.maxOutput) : text,
  processContent: (result, context) =>
    context.tool.maxOutput === undefined ? result : capContent(result, context.tool, context.tool.maxOutput),
};
