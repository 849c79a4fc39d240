import type { Session } from '../../loop/session.js';
import { isToolFailure } from '../../loop/tool-failure.js';
import { wrapTools } from '../../loop/wrap-tools.js';
import { createReferenceTools } from '../../tools/reference-tools.js';

/**
 * The demo's agent turn, run through `wrapTools`: rewrite styles.css, edit index.html, rewrite
 * app.js, change .env, create theme.css. Reads come first, as the guard requires.
 *
 * @returns the turn id.
 * @throws Error when a tool call fails (the demo's script is fixed, so that is a bug).
 */
export async function runAgentTurn(session: Session): Promise<string> {
  const tools = wrapTools({ session, tools: createReferenceTools() });
  const { id } = await session.beginTurn({ label: 'Switch the site to a dark theme' });
  const context = { root: session.root };
  const calls: [keyof typeof tools, unknown][] = [
    ['read', { path: 'styles.css' }],
    [
      'write',
      {
        path: 'styles.css',
        content: '@import "theme.css";\n\nbody {\n  background: var(--bg);\n  color: var(--fg);\n}\n',
      },
    ],
    ['read', { path: 'index.html' }],
    ['edit', { path: 'index.html', old_string: '<h1>Hello</h1>', new_string: '<h1 class="dark">Hello</h1>' }],
    ['read', { path: 'app.js' }],
    ['write', { path: 'app.js', content: "document.body.classList.add('dark');\n" }],
    ['read', { path: '.env' }],
    ['edit', { path: '.env', old_string: 'DEBUG=false', new_string: 'DEBUG=true' }],
    ['write', { path: 'theme.css', content: ':root {\n  --bg: #111;\n  --fg: #eee;\n}\n' }],
  ];
  for (const [name, input] of calls) {
    // biome-ignore lint/suspicious/noExplicitAny: the script's inputs match each tool's schema.
    const result = await tools[name].execute(input as any, context);
    if (isToolFailure(result)) throw new Error(`demo tool call ${name} failed: ${result.error.message}`);
  }
  await session.endTurn();
  return id;
}
