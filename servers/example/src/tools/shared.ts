import { z } from '@shipyard/core';

export const NoteSummary = z.object({
  slug: z.string(),
  title: z.string(),
  tags: z.array(z.string()),
  version: z.number().int(),
  updated_at: z.string(),
});
