import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/contracts/tool.js';
import { ToolRegistry } from '../../src/kernel/registry.js';

const tool = (name: string, expandedFrom?: string): ToolDefinition => ({
  name,
  type: expandedFrom ? 'mcp' : 'cli',
  description: name,
  hidden: false,
  parameters: [],
  spec: {},
  source: { file: 'x', line: 1 },
  ...(expandedFrom ? { expandedFrom } : {}),
});
const names = (tools: ToolDefinition[]): string[] => tools.map((each) => each.name);

describe('the tool registry', () => {
  it("keeps catalogue order and swaps one entry's tools in the place its old ones had", () => {
    const registry = new ToolRegistry([tool('a'), tool('up.x', 'up'), tool('up.y', 'up'), tool('b')]);
    expect(registry.replaceEntry('up', [tool('up.z', 'up'), tool('up.x', 'up')])).toEqual([]);
    expect(names(registry.catalogueOf())).toEqual(['a', 'up.z', 'up.x', 'b']);
    expect(registry.get('up.y')).toBeUndefined();
    expect(names(registry.all())).toEqual(['a', 'b', 'up.x', 'up.z']);
  });

  it('leaves out a listed tool whose name another tool has, and says which', () => {
    const registry = new ToolRegistry([tool('a'), tool('up.x', 'up')]);
    expect(registry.replaceEntry('up', [tool('a', 'up'), tool('up.x', 'up')])).toEqual(['a']);
    expect(registry.get('a')!.type).toBe('cli');
  });

  it("shows a session its own tools for an entry, in the entry's place, and only that session", () => {
    const registry = new ToolRegistry([tool('a'), tool('x', 'up'), tool('b')]);
    registry.setSessionTools('s1', 'up', [tool('x', 'up'), tool('sample', 'up')]);
    expect(names(registry.catalogueOf('s1'))).toEqual(['a', 'x', 'sample', 'b']);
    expect(registry.get('sample', 's1')?.name).toBe('sample');
    expect(registry.get('sample')).toBeUndefined();
    expect(registry.get('sample', 's2')).toBeUndefined();
    expect(names(registry.catalogueOf('s2'))).toEqual(['a', 'x', 'b']);
    registry.setSessionTools('s1', 'up', [tool('sample', 'up')]);
    expect(registry.get('x', 's1')).toBeUndefined();
    expect(registry.get('a', 's1')?.name).toBe('a');
    registry.dropSession('s1');
    expect(names(registry.catalogueOf('s1'))).toEqual(['a', 'x', 'b']);
  });
});
