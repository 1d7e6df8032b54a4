import { afterEach, describe, expect, it, vi } from 'vitest';
import { type BackupRequest, defineServer, runServer, UsageError } from '../src/index.js';

const definition = defineServer({ name: 'sample', version: '1.0.0', deps: {}, tools: [] });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('--backup FILE', () => {
  it('hands the request to the backup function, writes its summary on stderr and does not serve', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const requests: BackupRequest[] = [];
    const running = await runServer(definition, {
      argv: ['--backup', 'copy.db', '--overwrite', '--data-dir', '/srv/data'],
      env: {},
      exit: false,
      backup: async (request) => {
        requests.push(request);
        return `copied to ${request.file}`;
      },
    });
    expect(running).toBeUndefined();
    expect(requests).toEqual([{ server: 'sample', dataDir: '/srv/data', file: 'copy.db', overwrite: true }]);
    expect(stderr.mock.calls.map(([text]) => String(text))).toEqual(['shipyard-sample: copied to copy.db\n']);
  });

  it("fails with the backup's own message, on one line", async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const run = runServer(definition, {
      argv: ['--backup', 'copy.db'],
      env: { SHIPYARD_DATA_DIR: '/srv/data' },
      exit: false,
      backup: async ({ dataDir }) => {
        throw new Error(`there is no data file in ${dataDir}\nsecond line`);
      },
    });
    await expect(run).rejects.toBeInstanceOf(UsageError);
    expect(stderr.mock.calls.map(([text]) => String(text))).toEqual([
      'shipyard-sample: backup failed: there is no data file in /srv/data\n',
    ]);
  });
});
