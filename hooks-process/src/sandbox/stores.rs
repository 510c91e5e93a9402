//! The secret stores of a home: what the `project` profile never lets a
//! hook read, although it reads the rest of the home.
//!
//! A list of well-known places, so it misses what it does not name (red-team
//! round 6, R6-21): a host adds its own with `hooks_sandbox: {secrets:
//! [...]}`. Each entry is relative to the home; a folder is hidden whole, so
//! a tool folder whose code a hook may run (`~/.cargo`, `~/.pulumi`, on the
//! `PATH`) names only the files that hold the secret. Landlock hides them
//! from reads; a socket in one is hidden from `connect()` only by a mount
//! ([`super::HOME_SOCKETS`]). Each entry is looked at on every spawn where
//! it leads (`real.rs`): the folders holding many (the home, `.config`)
//! are read once, so a store that is not there costs no system call, and
//! the first missing folder of a path ends its walk.

/// The secret stores of a home that the `project` profile does not let a
/// hook read (relative to the home), grouped by kind and sorted in each
/// group. Extended per host with [`super::Context::secrets`]
/// (`hooks_sandbox: {secrets: [...]}` in config.yaml).
pub const SECRET_STORES: &[&str] = &[
    // Keys, agents, keyrings and password managers (an agent's socket
    // folder too: `connect()` is not a read, only a mount hides it).
    ".1password",
    ".bitwarden-ssh-agent.sock",
    ".config/1Password",
    ".config/Bitwarden",
    ".config/Bitwarden CLI",
    ".config/op",
    ".config/sops",
    ".gnupg",
    ".kde/share/apps/kwallet",
    ".local/share/gopass",
    ".local/share/keyrings",
    ".local/share/kwalletd",
    ".password-store",
    ".pki",
    ".ssh",
    // Cloud providers and their command-line tools.
    ".aliyun",
    ".aws",
    ".azure",
    ".boto",
    ".config/doctl",
    ".config/gcloud",
    ".config/hcloud",
    ".config/hcp",
    ".config/linode-cli",
    ".config/rclone",
    ".config/scw",
    ".ibmcloud",
    ".oci",
    ".ovh.conf",
    ".s3cfg",
    // Containers, clusters and infrastructure as code.
    ".colima",
    ".config/containers/auth.json",
    ".config/helm",
    ".docker/config.json",
    ".docker/desktop",
    ".docker/run",
    ".helm",
    ".kube",
    ".lima",
    ".minikube",
    ".pulumi/credentials.json",
    ".rd/docker.sock",
    ".terraform.d/credentials.tfrc.json",
    ".terraformrc",
    ".vault-token",
    // Hosting, deployment and service command-line tools.
    ".circleci/cli.yml",
    ".cloudflared",
    ".config/.wrangler",
    ".config/configstore",
    ".config/heroku",
    ".config/netlify",
    ".config/ngrok",
    ".config/stripe",
    ".databrickscfg",
    ".dbt/profiles.yml",
    ".expo",
    ".fly",
    ".local/share/com.vercel.cli",
    ".netlify",
    ".ngrok2",
    ".railway",
    ".sentryclirc",
    ".snowflake",
    ".snowsql/config",
    ".supabase",
    ".vercel",
    ".wrangler",
    // Git hosting, and the credentials git keeps.
    ".config/gh",
    ".config/git/credentials",
    ".config/glab-cli",
    ".config/hub",
    ".config/tea",
    ".git-credentials",
    ".netrc",
    // Package registries.
    ".bundle/config",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".composer/auth.json",
    ".config/composer/auth.json",
    ".config/dart/pub-credentials.json",
    ".config/pip",
    ".config/pypoetry/auth.toml",
    ".gem/credentials",
    ".gradle/gradle.properties",
    ".local/share/uv/credentials",
    ".m2/settings-security.xml",
    ".m2/settings.xml",
    ".npmrc",
    ".nuget/NuGet/NuGet.Config",
    ".pip/pip.conf",
    ".pub-cache/credentials.json",
    ".pypirc",
    ".yarnrc",
    ".yarnrc.yml",
    // Databases.
    ".local/share/DBeaverData",
    ".my.cnf",
    ".mylogin.cnf",
    ".pg_service.conf",
    ".pgpass",
    // AI agents and editors: logins, keys, the user's own agent settings,
    // editors' extension storage (tokens of signed-in extensions).
    ".aider.conf.yml",
    ".cache/huggingface/stored_tokens",
    ".cache/huggingface/token",
    ".claude.json",
    ".claude/.credentials.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codeium",
    ".codex/auth.json",
    ".config/Code - Insiders/User/globalStorage",
    ".config/Code/User/globalStorage",
    ".config/Cursor/User/globalStorage",
    ".config/VSCodium/User/globalStorage",
    ".config/Windsurf/User/globalStorage",
    ".config/anthropic",
    ".config/cursor",
    ".config/github-copilot",
    ".config/io.datasette.llm",
    ".config/openai",
    ".continue",
    ".cursor-server/data/User/globalStorage",
    ".cursor/mcp.json",
    ".gemini",
    ".hermes/.env",
    ".hermes/auth.json",
    ".hermes/config.yaml",
    ".huggingface/token",
    ".local/share/opencode/auth.json",
    ".ollama/id_ed25519",
    ".qwen/oauth_creds.json",
    ".vscode-server/data/User/globalStorage",
    // Browsers (cookies, saved passwords), mail and chat sessions.
    ".config/BraveSoftware",
    ".config/Element",
    ".config/Signal",
    ".config/Slack",
    ".config/chromium",
    ".config/discord",
    ".config/evolution",
    ".config/google-chrome",
    ".config/google-chrome-beta",
    ".config/microsoft-edge",
    ".config/opera",
    ".config/vivaldi",
    ".librewolf",
    ".local/share/TelegramDesktop",
    ".local/share/evolution",
    ".mozilla",
    ".purple",
    ".thunderbird",
    ".var/app",
    "snap/chromium",
    "snap/firefox",
    "snap/thunderbird",
    // Shell and REPL histories (a typed password or token), and dotenv.
    ".Rhistory",
    ".bash_history",
    ".config/nushell/history.sqlite3",
    ".config/nushell/history.txt",
    ".config/pgcli/history",
    ".dbshell",
    ".env",
    ".histfile",
    ".ipython/profile_default/history.sqlite",
    ".irb_history",
    ".julia/logs",
    ".lesshst",
    ".local/share/atuin",
    ".local/share/fish/fish_history",
    ".mongodb",
    ".mysql_history",
    ".node_repl_history",
    ".php_history",
    ".pry_history",
    ".psql_history",
    ".python_history",
    ".rediscli_history",
    ".sh_history",
    ".sqlite_history",
    ".zhistory",
    ".zsh_history",
];

#[cfg(test)]
mod tests {
    use super::SECRET_STORES;

    #[test]
    fn each_group_is_sorted_and_no_store_is_named_twice() {
        let source = include_str!("stores.rs");
        let table = &source[source.find("&[\n").unwrap()..source.find("\n];").unwrap()];
        let mut group: Vec<&str> = Vec::new();
        for line in table.lines().skip(1).map(str::trim) {
            if line.starts_with("//") {
                group.clear();
            } else if let Some(entry) = line.strip_prefix('"') {
                let entry = entry.trim_end_matches("\",");
                if let Some(last) = group.last() {
                    assert!(
                        *last < entry,
                        "{entry} after {last}: keep each group sorted"
                    );
                }
                group.push(entry);
            }
        }
        let mut all = SECRET_STORES.to_vec();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), SECRET_STORES.len(), "a store is named twice");
        assert!(SECRET_STORES.iter().all(|store| !store.starts_with('/')));
    }
}
