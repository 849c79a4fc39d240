/** Fragments that mark a name as secret-looking anywhere in it (PGPASSWORD, GITHUB_TOKEN). */
const SECRET_FRAGMENT = /TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL/i;

/** `_`-separated words that mark a name as secret-looking (SSH_AUTH_SOCK, OPENAI_API_KEY), but not GIT_AUTHOR_NAME. */
const SECRET_WORD = /^(?:.*KEYS?|AUTH|PASS|CREDS|COOKIES?|SESSION|PRIVATE|CERT|SIGNATURE)$/i;

/** Paths to public CA bundles: they contain CERT but no secret, and TLS breaks without them. */
const PUBLIC_CERTIFICATE_PATHS = new Set([
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NIX_SSL_CERT_FILE',
  'PIP_CERT',
  'CURL_CA_BUNDLE',
  'REQUESTS_CA_BUNDLE',
  'NODE_EXTRA_CA_CERTS',
  'GIT_SSL_CAINFO',
]);

function isSecretName(name: string): boolean {
  if (PUBLIC_CERTIFICATE_PATHS.has(name)) return false;
  return SECRET_FRAGMENT.test(name) || name.split('_').some((word) => SECRET_WORD.test(word));
}

/** A URL with `user:password@` in it (DATABASE_URL and the like). */
const CREDENTIAL_URL = /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i;

/** The result of {@link scrubEnvironment}. */
export interface ScrubbedEnvironment {
  /** The variables the command gets. */
  env: Record<string, string>;
  /** Names of the variables that were dropped, sorted. */
  dropped: string[];
}

/**
 * Drops every environment variable that looks like a secret, by name (TOKEN, SECRET, PASSWORD,
 * CREDENTIAL anywhere; the words KEY, AUTH, PASS, COOKIE, SESSION, PRIVATE, CERT) or by value (a URL with a password in it),
 * unless its exact name is in `allow`.
 *
 * @param env - the environment to filter (undefined values are skipped).
 * @param allow - names passed through even though they look secret.
 * @returns the kept variables and the sorted names of the dropped ones.
 * @example
 * ```ts
 * scrubEnvironment({ PATH: '/bin', GITHUB_TOKEN: 'x' }, []).dropped; // ['GITHUB_TOKEN']
 * ```
 */
export function scrubEnvironment(
  env: Record<string, string | undefined>,
  allow: readonly string[],
): ScrubbedEnvironment {
  const kept: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const secret = isSecretName(name) || CREDENTIAL_URL.test(value);
    if (secret && !allow.includes(name)) dropped.push(name);
    else kept[name] = value;
  }
  return { env: kept, dropped: dropped.sort() };
}
