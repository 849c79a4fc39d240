import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs git with a fixed identity and no user or system config, so the demo is the same everywhere. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(
    'git',
    [
      '-c',
      'user.name=safeturn demo',
      '-c',
      'user.email=demo@safeturn.invalid',
      '-c',
      'commit.gpgsign=false',
      '-c',
      'core.hooksPath=/dev/null',
      ...args,
    ],
    {
      cwd,
      env: {
        ...process.env,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_DIR: undefined,
        GIT_WORK_TREE: undefined,
      } as NodeJS.ProcessEnv,
    },
  );
  return stdout;
}

function stylesheet(): string {
  const lines = ['/* Site styles */', ':root {', '  --accent: #3366ff;', '  --text: #222;', '}', ''];
  for (let index = 0; lines.length < 200; index += 1) {
    lines.push(
      `.block-${index} {`,
      `  margin: ${index % 5}px;`,
      `  padding: ${(index * 3) % 7}px;`,
      '  color: var(--text);',
      '}',
      '',
    );
  }
  return `${lines.slice(0, 200).join('\n')}\n`;
}

/**
 * Builds the demo project: a git repository with index.html, styles.css (~200 lines), app.js and a
 * gitignored .env, committed; then the user's own uncommitted work: a new title in index.html and
 * an untracked notes.md.
 */
export async function buildProject(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, 'index.html'),
    '<!doctype html>\n<html>\n<head>\n  <title>My Site</title>\n  <link rel="stylesheet" href="styles.css">\n</head>\n<body>\n  <h1>Hello</h1>\n  <script src="app.js"></script>\n</body>\n</html>\n',
  );
  await writeFile(path.join(dir, 'styles.css'), stylesheet());
  await writeFile(
    path.join(dir, 'app.js'),
    "document.querySelector('h1').addEventListener('click', () => {\n  alert('hi');\n});\n",
  );
  await writeFile(path.join(dir, '.gitignore'), '.env\nnode_modules/\n');
  await writeFile(path.join(dir, '.env'), 'API_KEY=dev-key-123\nDEBUG=false\n');
  await git(dir, 'init', '-q', '-b', 'main');
  await git(dir, 'add', '.');
  await git(dir, 'commit', '-qm', 'Initial site');
  // The user's own work, not committed:
  const html = await readFile(path.join(dir, 'index.html'), 'utf8');
  await writeFile(
    path.join(dir, 'index.html'),
    html.replace('<title>My Site</title>', '<title>My Site: Draft 2</title>'),
  );
  await writeFile(path.join(dir, 'notes.md'), '# Notes\n\n- ask about the color scheme\n');
}

/** Every file under `dir` (except .git) -> its bytes, for byte-for-byte comparison. */
export async function snapshotFiles(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    const relative = path.relative(dir, full);
    if (relative === '.git' || relative.startsWith(`.git${path.sep}`)) continue;
    files.set(relative, await readFile(full));
  }
  return files;
}

/** Paths whose bytes differ between two snapshots (missing on either side included), sorted. */
export function differingFiles(expected: Map<string, Buffer>, actual: Map<string, Buffer>): string[] {
  const names = new Set([...expected.keys(), ...actual.keys()]);
  return [...names]
    .filter((name) => {
      const a = expected.get(name);
      const b = actual.get(name);
      return !a || !b || !a.equals(b);
    })
    .sort();
}
