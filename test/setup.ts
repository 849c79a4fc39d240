import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { closeTrackedSessions } from './helpers.js';

// No test may touch the real ~/.safeturn or HOME: each test file gets its own.
const base = mkdtempSync(path.join(os.tmpdir(), 'safeturn-test-home-'));
process.env.HOME = base;
process.env.SAFETURN_HOME = path.join(base, '.safeturn');
process.env.GIT_AUTHOR_NAME = 'Test';
process.env.GIT_AUTHOR_EMAIL = 'test@example.com';
process.env.GIT_COMMITTER_NAME = 'Test';
process.env.GIT_COMMITTER_EMAIL = 'test@example.com';
process.env.GIT_CONFIG_NOSYSTEM = '1';

// Sessions commit to their shadow repository in the background: let that finish before the
// test's temp dirs are removed (onTestFinished cleanups run after afterEach hooks).
afterEach(async () => {
  await closeTrackedSessions();
});

// The per-file HOME is removed once the file's tests (and their session cleanups) are done.
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});
