import type Anthropic from '@anthropic-ai/sdk';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { AGENT_TOOL_NAMES } from '@/contracts/pipeline.js';
import {
  anthropicTools,
  openAiTools,
  READ_ONLY_TOOLS,
  TOOL_NAMES,
  toolDeclarations,
} from './tool-declarations.js';
import { DEFAULT_TOOL_LIMITS } from './tool-types.js';

describe('tool declarations', () => {
  it('declares every tool once, for both providers, in their SDKs’ types', () => {
    const declarations = toolDeclarations();
    const anthropic: Anthropic.Messages.Tool[] = anthropicTools(declarations);
    const openai: ChatCompletionFunctionTool[] = openAiTools(declarations);
    // The contract's list (what the timeline's events name) is the executor's, in its order.
    expect(anthropic.map((tool) => tool.name)).toEqual([...AGENT_TOOL_NAMES]);
    expect(openai.map((tool) => tool.function.name)).toEqual(TOOL_NAMES);
    for (const tool of anthropic) {
      expect(tool.description?.length).toBeGreaterThan(10);
      expect(tool.input_schema.type).toBe('object');
    }
  });

  it('gives JSON Schema without $schema or safe-integer noise', () => {
    const [read] = toolDeclarations(['read_file']);
    expect(read?.parameters).toEqual({
      type: 'object',
      properties: {
        path: {
          type: 'string',
          minLength: 1,
          description: expect.stringContaining('relative to the repository root'),
        },
        startLine: { type: 'integer', minimum: 1, description: 'First line to show (1-based). Default: 1.' },
        endLine: { type: 'integer', minimum: 1, description: expect.any(String) },
      },
      required: ['path'],
      additionalProperties: false,
    });
    const [edit] = openAiTools(toolDeclarations(['edit_file']));
    expect(edit?.function.parameters?.required).toEqual(['path', 'oldText', 'newText']);
    const [check] = anthropicTools(toolDeclarations(['run_check']));
    expect(check?.input_schema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('states the caps it is given, and offers the read-only set', () => {
    const [list] = toolDeclarations(['list_files'], { ...DEFAULT_TOOL_LIMITS, maxListEntries: 123 });
    expect(list?.description).toContain('At most 123 paths');
    expect(toolDeclarations(READ_ONLY_TOOLS).map((d) => d.name)).toEqual([
      'list_files',
      'read_file',
      'search',
    ]);
  });
});
