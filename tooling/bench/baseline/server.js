#!/usr/bin/env node
// The baseline for every benchmark: a bare @modelcontextprotocol/sdk server with one `echo` tool, written
// the usual way (McpServer + registerTool with a zod input shape + StdioServerTransport) and run unbundled
// straight from node_modules. Keep it this plain: it is what "a server with no framework" costs here.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'bench-baseline', version: '1.0.0' });

server.registerTool(
  'echo',
  {
    title: 'Echo',
    description: 'Return the given text unchanged.',
    inputSchema: { text: z.string().describe('Text to return') },
    annotations: { readOnlyHint: true },
  },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);

await server.connect(new StdioServerTransport());
