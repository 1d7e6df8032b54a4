import type { UserConfig } from 'vitest/config';

export function vitestConfig(test?: NonNullable<UserConfig['test']>): UserConfig;
