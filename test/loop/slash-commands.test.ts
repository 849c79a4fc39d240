import { describe, expect, it } from 'vitest';
import { handleRewind, handleSandbox } from '../../src/loop/slash-commands.js';
import { exists, read, setup, turn, writeFiles } from '../helpers.js';

describe('/rewind and /sandbox handlers', () => {
  it('lists the last 10 rollback points, rewinds to N, dry-runs, and reports conflicts as data', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'a.txt': 'a0' });
    for (let index = 1; index <= 12; index += 1) {
      await turn(session, `turn number ${index}`, async () => {
        await tools.write.execute({ path: `f${index}.txt`, content: String(index) }, context());
      });
    }
    const list = await handleRewind(session, '');
    expect(list.data).toMatchObject({ ok: true, action: 'list' });
    expect(
      list.data.ok && list.data.action === 'list' && list.data.points.map((point) => point.number),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(list.text).toContain('turn number 12');
    expect(list.text).toContain('f12.txt');
    const dry = await handleRewind(session, '2 --dry-run');
    expect(dry.data).toMatchObject({
      ok: true,
      action: 'rewind',
      dryRun: true,
      report: { deleted: ['f11.txt', 'f12.txt'] },
    });
    expect(await exists(workspace, 'f12.txt')).toBe(true);
    const done = await handleRewind(session, ['2']);
    expect(done.data).toMatchObject({ ok: true, action: 'rewind', dryRun: false });
    expect(await exists(workspace, 'f11.txt')).toBe(false);
    expect(done.text).toContain('deleted   f11.txt');
    const bad = await handleRewind(session, '99');
    expect(bad.data).toMatchObject({ ok: false, code: 'NO_SUCH_TURN' });
    const usage = await handleRewind(session, 'x --what');
    expect(usage.data).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    await turn(session, 'edit a', async () => {
      await tools.read.execute({ path: 'a.txt' }, context());
      await tools.write.execute({ path: 'a.txt', content: 'a1' }, context());
    });
    await writeFiles(workspace, { 'a.txt': 'user edit' });
    const conflict = await handleRewind(session, '1');
    expect(conflict.data).toMatchObject({ ok: false, code: 'REWIND_CONFLICT', paths: ['a.txt'] });
    expect(conflict.text).toContain('--force');
    await handleRewind(session, '1 --force');
    expect(await read(workspace, 'a.txt')).toBe('a0');
  });

  it('/sandbox shows off, turns the sandbox on by naming a mode, and switches modes', async () => {
    const { session } = await setup();
    const off = await handleSandbox(session, '');
    expect(off.data).toMatchObject({ ok: true, mode: 'off' });
    const on = await handleSandbox(session, 'workspace-write');
    expect(on.data).toMatchObject({ ok: true, mode: 'workspace-write' });
    expect(session.sandbox?.policy.mode).toBe('workspace-write');
    const readOnly = await handleSandbox(session, 'read-only');
    expect(readOnly.data).toMatchObject({ ok: true, mode: 'read-only', previousMode: 'workspace-write' });
    expect(session.sandbox?.policy.mode).toBe('read-only');
    const unknown = await handleSandbox(session, 'yolo');
    expect(unknown.data.ok).toBe(false);
  });
});
