import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { dir } from 'tmp-promise';
import { describe, expect, it } from 'vitest';
import { SafeturnError } from '../../../src/errors/safeturn-error.js';
import { applyPatch } from '../../../src/tools/apply-patch/index.js';
import { directories, patchOf, snapshot, useSandbox, writeFiles } from './helpers.js';

interface FailureCase {
  name: string;
  files: Record<string, string | Uint8Array>;
  patch: string;
  code: string;
  message: RegExp;
  data?: Record<string, unknown>;
}

const cases: FailureCase[] = [
  {
    name: 'Delete File of a missing file',
    files: { 'other.txt': 'o\n' },
    patch: patchOf('*** Begin Patch', '*** Delete File: gone.txt', '*** End Patch'),
    code: 'PATCH_APPLY',
    message: /^Cannot delete gone\.txt: the file does not exist\.$/,
    data: { path: 'gone.txt' },
  },
  {
    name: 'Update File of a missing file',
    files: {},
    patch: patchOf('*** Begin Patch', '*** Update File: nope.txt', '@@', '-a', '+b', '*** End Patch'),
    code: 'PATCH_APPLY',
    message:
      /^Cannot update nope\.txt: the file does not exist\. Use '\*\*\* Add File: nope\.txt' to create it\.$/,
  },
  {
    name: 'a chunk that does not match names the file, its first lines and the closest candidates',
    files: { 'src/app.ts': 'const a = 1;\nconst b = 2;\nconst c = 3;\nconst b = 2;\nconst d = 4;\n' },
    patch: patchOf(
      '*** Begin Patch',
      '*** Update File: src/app.ts',
      '@@',
      ' const b = 2;',
      '-const c = 30;',
      '+const c = 300;',
      ' const e = 5;',
      '*** End Patch',
    ),
    code: 'PATCH_APPLY',
    message:
      /Chunk 1 \(patch line 3\) does not apply to src\/app\.ts: these lines were not found at or after line 1:\n {4}"const b = 2;"\n {4}"const c = 30;"\n {4}"const e = 5;"\nClosest candidates: line 2 \(1 of 3 lines match\), line 4 \(1 of 3 lines match\)\./,
    data: {
      path: 'src/app.ts',
      chunk: 1,
      patchLine: 3,
      searchedFrom: 1,
      expected: ['const b = 2;', 'const c = 30;', 'const e = 5;'],
      candidates: [
        { line: 2, matchingLines: 1 },
        { line: 4, matchingLines: 1 },
      ],
    },
  },
  {
    name: 'an @@ header that is not in the file',
    files: { 'a.py': 'def f():\n    pass\n' },
    patch: patchOf(
      '*** Begin Patch',
      '*** Update File: a.py',
      '@@ def g():',
      '-    pass',
      '+    return 1',
      '*** End Patch',
    ),
    code: 'PATCH_APPLY',
    message:
      /Chunk 1 \(patch line 3\) does not apply to a\.py: these lines were not found at or after line 1:\n {4}"def g\(\):"\nNo line of the file resembles them\./,
  },
  {
    name: 'a second chunk whose lines are only before the first one (search goes forward)',
    files: { 'a.txt': 'x\ny\nz\n' },
    patch: patchOf(
      '*** Begin Patch',
      '*** Update File: a.txt',
      '@@',
      '-z',
      '+Z',
      '@@',
      '-x',
      '+X',
      '*** End Patch',
    ),
    code: 'PATCH_APPLY',
    message:
      /Chunk 2 \(patch line 6\) does not apply to a\.txt: these lines were not found at or after line 4:\n {4}"x"\nClosest candidates: line 1 \(1 of 1 lines match\)\./,
  },
  {
    name: 'case P1: a patch whose second file fails to apply changes no file',
    files: { 'one.txt': 'one\n', 'two.txt': 'two\n' },
    patch: patchOf(
      '*** Begin Patch',
      '*** Update File: one.txt',
      '-one',
      '+ONE',
      '*** Add File: brand/new.txt',
      '+new',
      '*** Update File: two.txt',
      '-not there',
      '+x',
      '*** End Patch',
    ),
    code: 'PATCH_APPLY',
    message: /does not apply to two\.txt/,
  },
  {
    name: "a path with '..' that stays inside is still refused",
    files: { 'a/x.txt': 'x\n' },
    patch: patchOf('*** Begin Patch', '*** Delete File: a/../a/x.txt', '*** End Patch'),
    code: 'PATH_OUTSIDE_WORKSPACE',
    message: /contains '\.\.'/,
  },
  {
    name: "a path with '..' that leaves the workspace",
    files: {},
    patch: patchOf('*** Begin Patch', '*** Add File: ../escape.txt', '+x', '*** End Patch'),
    code: 'PATH_OUTSIDE_WORKSPACE',
    message: /contains '\.\.'/,
  },
  {
    name: 'an absolute path outside the workspace',
    files: {},
    patch: patchOf(
      '*** Begin Patch',
      '*** Add File: /tmp/safeturn-apply-patch-escape.txt',
      '+x',
      '*** End Patch',
    ),
    code: 'PATH_OUTSIDE_WORKSPACE',
    message: /outside the workspace/,
  },
  {
    name: 'a path that is a directory',
    files: { 'dir/inner.txt': 'i\n' },
    patch: patchOf('*** Begin Patch', '*** Update File: dir', '@@', '+x', '*** End Patch'),
    code: 'PATCH_APPLY',
    message: /^Cannot patch dir: it is a directory\.$/,
  },
  {
    name: 'a file that is not UTF-8 text',
    files: { 'bin.dat': new Uint8Array([0xff, 0xfe, 0x00, 0x41, 0x0a]) },
    patch: patchOf('*** Begin Patch', '*** Update File: bin.dat', '@@', '+x', '*** End Patch'),
    code: 'PATCH_APPLY',
    message: /^Cannot patch bin\.dat: it is not UTF-8 text\.$/,
  },
  {
    name: 'a malformed patch',
    files: { 'a.txt': 'a\n' },
    patch: patchOf('*** Begin Patch', '*** Update File: a.txt', '@@', ' a', 'b', '*** End Patch'),
    code: 'PATCH_PARSE',
    message: /^Invalid patch, line 5: /,
  },
];

async function expectRefused(promise: Promise<unknown>): Promise<SafeturnError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(SafeturnError.isInstance(error)).toBe(true);
  return error as SafeturnError;
}

describe('applyPatch refusals (no file changes)', () => {
  const sandbox = useSandbox();

  it.each(cases)('refuses: $name', async ({ files, patch, code, message, data }) => {
    const { root } = sandbox();
    await writeFiles(root, files);
    const before = await snapshot(root);
    const beforeDirectories = await directories(root);
    const error = await expectRefused(applyPatch(patch, { root }));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    if (data !== undefined) expect(error.data).toEqual(data);
    expect(await snapshot(root)).toEqual(before);
    expect(await directories(root)).toEqual(beforeDirectories);
  });

  it('refuses a symlinked directory that leads outside the workspace', async () => {
    const { root } = sandbox();
    const outside = await dir({ unsafeCleanup: true });
    try {
      await writeFile(path.join(outside.path, 'secret.txt'), 'secret\n');
      await symlink(outside.path, path.join(root, 'link'));
      const error = await expectRefused(
        applyPatch(patchOf('*** Begin Patch', '*** Add File: link/secret.txt', '+pwned', '*** End Patch'), {
          root,
        }),
      );
      expect(error.code).toBe('PATH_OUTSIDE_WORKSPACE');
      expect(await snapshot(outside.path)).toEqual({ 'secret.txt': 'secret\n' });
    } finally {
      await outside.cleanup();
    }
  });

  it('refuses a symlinked file that points outside the workspace', async () => {
    const { root } = sandbox();
    const outside = await dir({ unsafeCleanup: true });
    try {
      await writeFile(path.join(outside.path, 'target.txt'), 'a\n');
      await symlink(path.join(outside.path, 'target.txt'), path.join(root, 'file.txt'));
      const error = await expectRefused(
        applyPatch(patchOf('*** Begin Patch', '*** Update File: file.txt', '-a', '+b', '*** End Patch'), {
          root,
        }),
      );
      expect(error.code).toBe('PATH_OUTSIDE_WORKSPACE');
      expect(await snapshot(outside.path)).toEqual({ 'target.txt': 'a\n' });
    } finally {
      await outside.cleanup();
    }
  });

  it('puts back every file already written when a later write fails', async () => {
    const { root } = sandbox();
    await writeFiles(root, { 'a.txt': 'a\n', blocker: 'I am a file\n', 'gone.txt': 'g\n' });
    const error = await expectRefused(
      applyPatch(
        patchOf(
          '*** Begin Patch',
          '*** Update File: a.txt',
          '-a',
          '+A',
          '*** Add File: fresh/dir/new.txt',
          '+n',
          '*** Add File: blocker/inside.txt',
          '+x',
          '*** Delete File: gone.txt',
          '*** End Patch',
        ),
        { root },
      ),
    );
    expect(error.code).toBe('PATCH_APPLY');
    expect(error.data).toMatchObject({ path: 'blocker/inside.txt', phase: 'write', rollbackFailures: [] });
    expect(error.message).toMatch(/Every file already written was put back; no file was changed\.$/);
    expect(await snapshot(root)).toEqual({ 'a.txt': 'a\n', blocker: 'I am a file\n', 'gone.txt': 'g\n' });
    expect(await directories(root)).toEqual([]);
  });

  it('writes nothing when the abort signal fired', async () => {
    const { root } = sandbox();
    await mkdir(path.join(root, 'x'));
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(
      applyPatch(patchOf('*** Begin Patch', '*** Add File: x/a.txt', '+a', '*** End Patch'), {
        root,
        abortSignal: controller.signal,
      }),
    ).rejects.toThrow('stop');
    expect(await snapshot(root)).toEqual({});
  });
});
