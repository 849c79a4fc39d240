import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { SafeturnError } from '../../errors/safeturn-error.js';
import { sandboxCheck } from '../../sandbox/sandbox-check.js';
import { type CommonOptions, openSession } from '../context.js';
import { createOutput, EXIT } from '../output.js';
import { parseCount } from '../parse-number.js';
import { withCommon } from './with-common.js';

async function directorySize(directory: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => [])) {
    if (!entry.isFile()) continue;
    files += 1;
    bytes += (await stat(path.join(entry.parentPath, entry.name)).catch(() => ({ size: 0 }))).size;
  }
  return { files, bytes };
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** `safeturn status`, `gc`, `doctor`. */
export function registerMaintenanceCommands(program: Command, setExit: (code: number) => void): void {
  withCommon(
    program.command('status').description('store size, rollback points and the last coverage note'),
  ).action(async (options: CommonOptions) => {
    const out = createOutput(options.json ?? false);
    const session = await openSession(options, 'existing', { readOnly: true });
    const store = await directorySize(path.join(session.projectDir, 'blobs'));
    const points = session.rollbackPoints();
    const lastBashTurn = [...points].find(
      (point) =>
        session.coverage(point.turnId).created.length +
          session.coverage(point.turnId).modified.length +
          session.coverage(point.turnId).deleted.length +
          session.coverage(point.turnId).uncovered.length >
        0,
    );
    const coverage = lastBashTurn ? session.coverage(lastBashTurn.turnId) : undefined;
    const worktrees = await session.worktrees.list().catch(() => []);
    out.record('status', {
      session: session.id,
      workspace: session.workspace,
      projectDir: session.projectDir,
      store: { blobs: store.files, bytes: store.bytes },
      rollbackPoints: points.length,
      newest: points[0] ?? null,
      lastCoverage: coverage ?? null,
      sandbox: session.sandbox ? session.sandbox.policy.mode : 'off',
      worktrees: worktrees.map((worktree) => ({ name: worktree.name, exists: worktree.exists })),
    });
    const lines = [
      `workspace  ${session.workspace}`,
      `session    ${session.id}`,
      `store      ${store.files} blobs, ${megabytes(store.bytes)} (${session.projectDir})`,
      `rollback   ${points.length} point(s)${points[0] ? `; newest: ${points[0].turnId} ${points[0].label}` : ''}`,
      `sandbox    ${session.sandbox ? session.sandbox.policy.mode : 'off'}`,
      `worktrees  ${worktrees.length === 0 ? 'none' : worktrees.map((worktree) => worktree.name).join(', ')}`,
    ];
    if (coverage) {
      lines.push(
        `last bash coverage (turn ${coverage.turn}): ${coverage.created.length} created, ${coverage.modified.length} modified, ${coverage.deleted.length} deleted`,
      );
      for (const item of coverage.uncovered)
        lines.push(`  not covered: ${item.path} (${item.reason}: ${item.detail})`);
    }
    out.say(lines.join('\n'));
    setExit(EXIT.done);
  });

  withCommon(
    program
      .command('gc')
      .description(
        'delete stored pre-images nothing references; prune the oldest turns while over --max-store-bytes',
      )
      .option('--max-store-bytes <n>', 'prune oldest turns until the store is at most this size', parseCount)
      .option(
        '--grace-ms <n>',
        'keep unreferenced blobs younger than this (a capture may be in flight)',
        parseCount,
        600_000,
      ),
  ).action(async (options: CommonOptions & { maxStoreBytes?: number; graceMs: number }) => {
    const out = createOutput(options.json ?? false);
    const session = await openSession(options);
    if (process.stderr.isTTY)
      process.stderr.write(`gc: reading journals and the blob store of ${session.projectDir} ...\n`);
    const report = await session.gc({
      graceMs: options.graceMs,
      ...(options.maxStoreBytes === undefined ? {} : { maxStoreBytes: options.maxStoreBytes }),
    });
    out.record('gc-report', { ...report });
    out.say(
      `gc: deleted ${report.deletedBlobs} blob(s) (${megabytes(report.freedBytes)}); kept ${report.keptBlobs} (${megabytes(report.storeBytes)}); pruned ${report.prunedTurns.length} turn(s).`,
    );
    setExit(EXIT.done);
  });

  withCommon(
    program
      .command('doctor')
      .description('check the sandbox, the store and worktrees; --repair fixes orphaned worktrees')
      .option('--repair', 'repair what can be repaired'),
  ).action(async (options: CommonOptions & { repair?: boolean }) => {
    const out = createOutput(options.json ?? false);
    const check = await sandboxCheck();
    const lines = [...check.lines];
    let problems = check.available ? 0 : 1;
    // Without --session, a workspace with no session yet is fine; a mistyped --session is not.
    const session = await openSession(options, 'existing', { readOnly: true }).catch((error: unknown) => {
      if (options.session === undefined && SafeturnError.isInstance(error) && error.code === 'INVALID_INPUT')
        return undefined;
      throw error;
    });
    if (session) {
      const { skippedLines } = await session.journal.read();
      problems += skippedLines.length > 0 ? 1 : 0;
      lines.push(
        skippedLines.length === 0
          ? 'journal: ok'
          : `journal: ${skippedLines.length} torn or invalid line(s) skipped, at line numbers ${skippedLines.join(', ')} of ${session.journal.file}`,
      );
      const findings = await session.worktrees.doctor({ repair: options.repair ?? false });
      for (const finding of findings) {
        lines.push(
          `worktree ${finding.name}: ${finding.kind}${finding.repaired ? ' (repaired)' : ''}: ${finding.detail}`,
        );
      }
      if (findings.length === 0) lines.push('worktrees: ok');
      problems += findings.filter((finding) => !finding.repaired).length;
      out.record('doctor', { sandbox: check, journalSkippedLines: skippedLines, worktrees: findings });
    } else {
      out.record('doctor', { sandbox: check });
      lines.push('store: no session for this workspace yet');
    }
    out.say(lines.join('\n'));
    setExit(problems === 0 ? EXIT.done : EXIT.partial);
  });
}
