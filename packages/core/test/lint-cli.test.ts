import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// Runs the built CLI: `pnpm --filter @shipyard/core build` (turbo does it before test) must have run.
const CLI = fileURLToPath(new URL('../dist/lint/cli.js', import.meta.url));
const CORE = new URL('../dist/index.js', import.meta.url).href;

const GOOD_DESCRIPTION =
  'Get one thing by its id. Returns the thing with its name. Use this when the user names a thing.';

/** Source of a defineTool(...) call for a fixture module. */
function tool(name: string, description = GOOD_DESCRIPTION): string {
  return `defineTool({
    name: ${JSON.stringify(name)},
    title: 'A tool',
    description: ${JSON.stringify(description)},
    input: { id: z.string().max(100).describe('Identifier of the thing') },
    output: { name: z.string() },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: () => ({ name: 'thing' }),
  })`;
}

/** A module whose default export is a definition (or, with `factory`, a function of deps returning one). */
function serverModule(name: string, tools: string[], extra = '', factory = false): string {
  const definition = `defineServer({ name: ${JSON.stringify(name)}, version: '1.0.0', deps, tools: [${tools.join(', ')}]${extra} })`;
  const body = factory
    ? `export default (deps) => ${definition};`
    : `const deps = {};\nexport default ${definition};`;
  return `import { definePrompt, defineServer, defineTool, z } from ${JSON.stringify(CORE)};\n${body}\n`;
}

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A temp workspace with servers/<name>; a null module means the server is not built. */
function workspace(servers: Record<string, string | null>): string {
  root = mkdtempSync(join(tmpdir(), 'shipyard-lint-'));
  writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages:\n  - servers/*\n');
  mkdirSync(join(root, 'servers', 'docs'), { recursive: true });
  writeFileSync(join(root, 'servers', 'docs', 'package.json'), JSON.stringify({ name: 'docs' }));
  for (const [name, source] of Object.entries(servers)) {
    const dir = join(root, 'servers', name);
    mkdirSync(join(dir, 'dist'), { recursive: true });
    const pkg = { name: `@test/${name}`, type: 'module', shipyard: { definition: './dist/server.js' } };
    writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg));
    if (source !== null) writeFileSync(join(dir, 'dist', 'server.js'), source);
  }
  return root;
}

function lint(args: string[], cwd = process.cwd()) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 20_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('shipyard-lint', { timeout: 30_000 }, () => {
  it('passes a clean workspace and prints the tools/list size of each server', () => {
    const dir = workspace({
      alpha: serverModule('alpha', [tool('get_alpha')]),
      beta: serverModule('beta', [tool('get_beta'), tool('list_beta')], '', true),
    });
    const { code, stdout, stderr } = lint(['--root', dir]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^alpha: 1 tools, \d+ tokens \(budget 3500\)$/m);
    expect(stdout).toMatch(/^beta: 2 tools, \d+ tokens/m);
    expect(stdout.trim().split('\n').at(-1)).toBe('shipyard-lint: 2 servers, 3 tools, 0 errors, 0 warnings');
  });

  it('finds the workspace root from the working directory', () => {
    const dir = workspace({ alpha: serverModule('alpha', [tool('get_alpha')]) });
    const { code, stdout } = lint([], join(dir, 'servers', 'alpha', 'dist'));
    expect(code).toBe(0);
    expect(stdout).toContain('shipyard-lint: 1 servers, 1 tools, 0 errors, 0 warnings');
  });

  it('exits 1 and prints server/tool rule: message for an error', () => {
    const dir = workspace({ alpha: serverModule('alpha', [tool('get_alpha', 'Alpha getter tool')]) });
    const { code, stdout } = lint(['--root', dir]);
    expect(code).toBe(1);
    expect(stdout).toContain('error alpha/get_alpha description: does not say what the tool returns');
    expect(stdout).toMatch(/shipyard-lint: 1 servers, 1 tools, 3 errors, \d+ warnings/);
  });

  it('prints only JSON with --json', () => {
    const dir = workspace({
      alpha: serverModule('alpha', [tool('alpha_get')]),
      beta: serverModule('beta', [tool('get_beta')]),
    });
    const { code, stdout } = lint(['--root', dir, '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      servers: ['alpha', 'beta'],
      findings: [
        {
          rule: 'tool-name',
          severity: 'warning',
          where: 'alpha/alpha_get',
          message: expect.stringContaining('"alpha" is not'),
        },
      ],
    });
  });

  it('reports a tool name used by two servers', () => {
    const dir = workspace({
      alpha: serverModule('alpha', [tool('get_thing')]),
      beta: serverModule('beta', [tool('get_thing')]),
    });
    const { code, stdout } = lint(['--root', dir]);
    expect(code).toBe(1);
    expect(stdout).toContain(
      'error beta/get_thing unique-name: `get_thing` is a tool of servers alpha and beta',
    );
  });

  it('lints only the servers named on the command line', () => {
    const dir = workspace({
      alpha: serverModule('alpha', [tool('get_thing')]),
      beta: serverModule('beta', [tool('get_thing')]),
    });
    const { code, stdout } = lint(['--root', dir, 'beta']);
    expect(code).toBe(0);
    expect(stdout).toContain('shipyard-lint: 1 servers, 1 tools, 0 errors, 0 warnings');
    const unknown = lint(['--root', dir, 'gamma']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown server gamma; servers: alpha, beta');
  });

  it('fails clearly when a factory uses deps while building the definition', () => {
    const source = serverModule('alpha', [tool('get_alpha')], ', instructions: String(deps.db)', true);
    const { code, stdout, stderr } = lint(['--root', workspace({ alpha: source })]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('error servers/alpha: deps.db was read while linting alpha;');
    expect(stderr).toContain('not while building the definition');
  });

  it('warns when a prompt cannot render because it uses deps', () => {
    const prompt = `definePrompt({
      name: 'use-alpha',
      description: 'Work with alpha',
      args: {},
      messages: (_args, ctx) => 'Call \`get_alpha\` with ' + ctx.deps.db.name,
    })`;
    const source = serverModule('alpha', [tool('get_alpha')], `, prompts: [${prompt}]`, true);
    const { code, stdout } = lint(['--root', workspace({ alpha: source })]);
    expect(code).toBe(0);
    expect(stdout).toContain('warn  alpha/prompt:use-alpha prompts: could not render');
    expect(stdout).toContain('deps.db was read while linting alpha');
  });

  it('asks for a build when a server has no built definition', () => {
    const { code, stderr } = lint(['--root', workspace({ alpha: null })]);
    expect(code).toBe(1);
    expect(stderr).toContain(
      'error servers/alpha: servers/alpha/dist/server.js does not exist; run `pnpm build` first',
    );
  });

  it('rejects a module that exports no definition', () => {
    const { code, stderr } = lint(['--root', workspace({ alpha: 'export default 42;\n' })]);
    expect(code).toBe(1);
    expect(stderr).toContain('is neither a ServerDefinition nor a factory');
  });
});
