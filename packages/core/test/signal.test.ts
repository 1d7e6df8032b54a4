import { afterEach, expect, it } from 'vitest';
import { defineServer, defineTool, z } from '../src/index.js';
import { connect, type Harness, waitFor } from './helpers.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const seen: string[] = [];
const waitForAbort = defineTool({
  name: 'wait_for_abort',
  title: 'Wait for abort',
  description: 'Wait until the call is cancelled. Returns nothing useful. Use this in tests only.',
  input: {},
  output: { aborted: z.boolean() },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (_input, ctx) =>
    new Promise<{ aborted: boolean }>((resolve) => {
      seen.push('started');
      ctx.signal.addEventListener('abort', () => {
        seen.push('aborted');
        resolve({ aborted: true });
      });
    }),
});

it('aborts ctx.signal when the client cancels the call', async () => {
  harness = await connect(
    defineServer({ name: 'signal', version: '0.0.0', deps: {}, tools: [waitForAbort] }),
  );
  const controller = new AbortController();
  const call = harness.client.callTool({ name: 'wait_for_abort', arguments: {} }, undefined, {
    signal: controller.signal,
  });
  await waitFor(() => seen.includes('started'), 'the call to start');
  controller.abort('user cancelled');
  await expect(call).rejects.toThrow();
  await waitFor(() => seen.includes('aborted'), 'the handler to see the abort');
});
