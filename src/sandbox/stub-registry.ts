import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SandboxPlan } from './sandbox-plan.js';

/** File name of a run's stub registration inside its private temp dir. */
const REGISTRY_NAME = 'stubs.json';
const PREFIX = 'safeturn-sandbox-';

interface RegisteredStub {
  path: string;
  firstMissing: string;
}

async function readSiblingRegistries(parent: string, ownRoot: string): Promise<RegisteredStub[]> {
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return [];
  }
  const stubs: RegisteredStub[] = [];
  for (const name of names) {
    if (!name.startsWith(PREFIX) || path.join(parent, name) === ownRoot) continue;
    try {
      const listed: unknown = JSON.parse(await readFile(path.join(parent, name, REGISTRY_NAME), 'utf8'));
      if (!Array.isArray(listed)) continue;
      for (const item of listed as RegisteredStub[]) {
        if (typeof item?.path === 'string' && typeof item.firstMissing === 'string') stubs.push(item);
      }
    } catch {
      // A run without stubs, or one that is finishing.
    }
  }
  return stubs;
}

/**
 * Shares mount stubs between concurrent runs (private temp dirs under the same parent). A path
 * another live run stubbed looks like an existing empty file to this run's plan: it is adopted as a
 * stub again (so the last run to finish removes it), then this run's stubs are registered in
 * `<private temp dir>/stubs.json`. Without this, the first run to finish would remove a stub the
 * other still has mounted, which detaches that mount.
 *
 * @param temporaryRoot - this run's private temp dir.
 * @param plan - this run's plan; protected entries are updated in place.
 * @returns the registration file, for {@link stubsInUse} at cleanup.
 */
export async function registerStubs(temporaryRoot: string, plan: SandboxPlan): Promise<string> {
  // Nothing to share when nothing is protected (no .git, HOME outside the writable roots).
  const siblings =
    plan.protectedEntries.length === 0
      ? []
      : await readSiblingRegistries(path.dirname(temporaryRoot), temporaryRoot);
  for (const entry of plan.protectedEntries) {
    const sibling = siblings.find((stub) => stub.path === entry.path);
    if (entry.exists && sibling !== undefined) {
      entry.exists = false;
      entry.firstMissing = sibling.firstMissing;
    }
  }
  const file = path.join(temporaryRoot, REGISTRY_NAME);
  const own: RegisteredStub[] = plan.protectedEntries
    .filter((entry) => !entry.exists)
    .map((entry) => ({ path: entry.path, firstMissing: entry.firstMissing ?? entry.path }));
  await writeFile(file, JSON.stringify(own));
  return file;
}

/**
 * The stub paths other live runs registered. Call after removing this run's own registration.
 *
 * @param ownRegistry - this run's registration file (its directory's parent holds the others).
 */
export async function stubsInUse(ownRegistry: string): Promise<Set<string>> {
  const ownRoot = path.dirname(ownRegistry);
  const stubs = await readSiblingRegistries(path.dirname(ownRoot), ownRoot);
  return new Set(stubs.map((stub) => stub.path));
}
