import { listedByType, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { localDate } from '../domain/model.js';
import { decoded, forResource, LIMITS, projectLabels, projectMarkdown } from '../domain/reports.js';
import { fields } from './shared.js';

export default tool({
  name: 'get_project_status',
  title: 'Get project status',
  description:
    "Get a project's status. Returns its page tickets://projects/{project} as markdown (counts, oldest " +
    'urgent, blocked and overdue tickets) and its labels in use with ticket and open counts. Use this for a ' +
    'status report or to pick labels.',
  input: { project: fields.project },
  output: {
    page: z.string(),
    // Each a label with its ticket and open counts, as the description says.
    labels: listedByType(z.array(z.object({ label: z.string() }).loose())),
    label_count: z.number().int(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    // One snapshot, so the page and the labels agree; both as the resources show them (errors too).
    const { status, labels } = await forResource(() =>
      ctx.deps.store.projectReport(decoded(input.project), {
        today: localDate(),
        limit: LIMITS.reportItems,
        labels: LIMITS.labels,
      }),
    );
    const shown = projectLabels(labels);
    return { page: projectMarkdown(status), labels: shown.labels, label_count: shown.count };
  },
});
