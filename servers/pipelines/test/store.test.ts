import { expect, it } from 'vitest';
import type { Job, Run } from '../src/domain/model.js';
import { engine, openStore } from './helpers.js';

// GitHub's run and job ids are past 2^31 (PostgreSQL stores them as bigint, SQLite as its 64-bit integer).
const RUN_ID = 21_474_836_470;
const JOB_ID = 60_129_542_144;
const WORKFLOW_ID = 3_000_000_001;

const run: Run = {
  id: RUN_ID,
  repo: 'o/r',
  workflow_id: WORKFLOW_ID,
  workflow: 'CI',
  run_number: 4,
  branch: 'main',
  commit: 'abc1234',
  event: 'push',
  status: 'completed',
  conclusion: 'success',
  attempt: 1,
  created_at: '2026-03-02T08:00:00Z',
  started_at: '2026-03-02T08:00:00Z',
  finished_at: '2026-03-02T08:01:30Z',
  url: '',
};
const job: Job = {
  id: JOB_ID,
  run_id: RUN_ID,
  name: 'test',
  status: 'completed',
  conclusion: 'success',
  attempt: 1,
  created_at: null,
  started_at: '2026-03-02T08:00:10Z',
  completed_at: '2026-03-02T08:01:00Z',
  steps: [],
};

it(`keeps 64-bit run, job and workflow ids and reads them back as numbers (${engine})`, async () => {
  const { store, close } = await openStore();
  try {
    await store.saveRuns([{ run, jobs: [job] }]);
    expect(await store.getRun(RUN_ID)).toEqual(run);
    expect(await store.getJob(JOB_ID)).toEqual({ ...job, repo: 'o/r' });
    expect(
      await store.listRuns({ repo: 'o/r', workflow: String(WORKFLOW_ID) }, { limit: 5, offset: 0 }),
    ).toEqual({ runs: [run], total: 1 });
    expect(await store.completeRunIds('2147')).toEqual([String(RUN_ID)]);
    expect(await store.completeJobIds(RUN_ID, '6012')).toEqual([String(JOB_ID)]);
    expect(await store.durations(WORKFLOW_ID, undefined, '2026-03-01')).toEqual([
      { started_at: run.started_at, duration_ms: 90_000 },
    ]);
    expect(await store.durations(WORKFLOW_ID, 'test', '2026-03-01')).toEqual([
      { started_at: job.started_at, duration_ms: 50_000 },
    ]);
  } finally {
    await close();
  }
});
