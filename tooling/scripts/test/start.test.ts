import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const start = fileURLToPath(new URL('../start.mjs', import.meta.url));

describe('pnpm start (the quick start)', () => {
  it('builds the example server and serves it on stdio, answering initialize', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-start-'));
    try {
      const child = spawn(process.execPath, [start, 'example', '--data-dir', dataDir], { stdio: 'pipe' });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk;
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      };
      child.stdin.end(`${JSON.stringify(initialize)}\n`);
      expect(await exited).toBe(0);
      const answer = JSON.parse(stdout.split('\n')[0] ?? '') as {
        id: number;
        result: { serverInfo: unknown };
      };
      expect(answer.id).toBe(1);
      expect(answer.result.serverInfo).toMatchObject({ name: 'shipyard-example' });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
