/**
 * Credential stores denied to every sandboxed command unless `useDefaultDenyRead: false`,
 * relative to HOME (`~/`). Directories are hidden, files read as empty.
 */
export const DEFAULT_DENY_READ: readonly string[] = [
  '~/.ssh',
  '~/.gnupg',
  '~/.aws',
  '~/.azure',
  '~/.config/gcloud',
  '~/.config/gh',
  '~/.config/hub',
  '~/.docker/config.json',
  '~/.kube',
  '~/.netrc',
  '~/.npmrc',
  '~/.pypirc',
  '~/.git-credentials',
  '~/.password-store',
  '~/.vault-token',
  '~/.pgpass',
  '~/.my.cnf',
  '~/.cargo/credentials',
  '~/.cargo/credentials.toml',
  '~/.terraform.d/credentials.tfrc.json',
  '~/.local/share/keyrings',
];

/**
 * Files in HOME that a command could use to run code later (shell rc files) or to change git
 * for every repository (`~/.gitconfig`): read-only, existing or not, when HOME lies inside a
 * writable root.
 */
export const HOME_PROTECTED_FILES: readonly string[] = [
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.kshrc',
  '.mkshrc',
  '.cshrc',
  '.tcshrc',
  '.login',
  '.logout',
  '.inputrc',
  '.gitconfig',
  '.config/git/config',
  '.config/fish/config.fish',
];

/** The config file name looked up in the workspace; read-only inside the sandbox so a command cannot loosen its own policy. */
export const CONFIG_FILE_NAME = 'safeturn.config.json';
