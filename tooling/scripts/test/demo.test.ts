import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const demo = fileURLToPath(new URL('../demo.mjs', import.meta.url));
const run = (...args: string[]) =>
  spawnSync(process.execPath, [demo, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('pnpm demo (the quick start)', () => {
  it('runs a short session against the tickets server by default, and returns', () => {
    const { status, stdout, stderr } = run();
    expect(status, stderr).toBe(0);
    for (const step of [
      '→ initialize\n← shipyard-tickets ',
      '→ tools/list\n',
      '→ tools/call {"name":"create_project"',
      '→ tools/call {"name":"create_ticket"',
      '"key":"SHIP-1"',
      '→ tools/call {"name":"search_tickets"',
      '→ resources/read {"uri":"tickets://SHIP-1"}\n← # SHIP-1: "Search crashes on an empty query"',
      '→ prompts/get {"name":"triage-ticket"',
    ])
      expect(stdout).toContain(step);
    expect(stdout).toMatch(/← \d+ tools:\n {2}create_project /);
    expect(stdout).not.toContain('← error');
    // Short enough to read through, and its data is gone.
    expect(stdout.split('\n').length).toBeLessThan(100);
    const dataDir = /its data \(in (.+?)\) is removed/.exec(stdout)?.[1];
    expect(dataDir).toBeDefined();
    expect(existsSync(dataDir ?? '')).toBe(false);
  }, 120_000);

  it('runs the example server by name', () => {
    const { status, stdout, stderr } = run('example');
    expect(status, stderr).toBe(0);
    expect(stdout).toContain('→ initialize\n← shipyard-example ');
    expect(stdout).toContain('→ tools/call {"name":"save_note"');
    expect(stdout).not.toContain('shipyard-tickets');
  }, 120_000);

  it('answers a name that is not a server with the servers there are', () => {
    const { status, stdout, stderr } = run('ticket');
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^No server "ticket" in servers\/\. There are: .*\bexample\b.*\btickets\b/);
  });
});
