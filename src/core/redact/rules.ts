/**
 * The secret patterns. Provider token shapes follow gitleaks' default rule set
 * (config/gitleaks.toml, MIT; rule ids in the comments) and secretlint's recommended preset
 * where gitleaks has none (basic-auth URLs): the two maintained pattern sets. They are copied
 * here as a table rather than depended on: secretlint is an asynchronous lint framework
 * (reports with ranges, a rule loader) and gitleaks a Go binary, and this runs in the
 * PostToolUse hook on every tool call, where the whole redaction must cost microseconds.
 *
 * Each rule has lower-case `keywords` (gitleaks' prefilter): its regex runs only when the
 * lower-cased text contains one of them, so a typical event with no secret runs no regex. A
 * rule whose regex has a `secret` group replaces that group alone (the key name or URL around
 * it stays readable); otherwise the whole match. Every regex is global, compiled once.
 */

/** How an assignment wrote its value (for rules whose regex has the `dq`/`sq`/`bare` value groups). */
export interface ValueInfo {
  quoted: boolean;
  /** The assignment used `=` (`password=x`, `PASS := x`), not a colon. */
  equals: boolean;
  /** The character before the match ('' at the start): the rest of the key's name ends there. */
  before: string;
  /** The match up to the value (the key word and the assignment). */
  key: string;
  /** The whole key name (`HEROKU_API_KEY`, `_authToken`): the identifier the key word ends. */
  name: string;
}

/** One pattern: what it is called in `[redacted:KIND]`, when it runs, and what it matches. */
export interface SecretRule {
  kind: string;
  keywords: readonly string[];
  regex: RegExp;
  /** A match whose secret part has less Shannon entropy (bits per character) than this is kept. */
  minEntropy?: number;
  /** Extra check on the secret part; false keeps the match. */
  accept?: (secret: string, how: ValueInfo) => boolean;
}

/** The end of a token: not followed by another token character (gitleaks' trailing group, as a lookahead). */
const END = '(?![A-Za-z0-9_-])';

const rx = (source: string, flags = 'g') => new RegExp(source, flags);

/**
 * The start of a token: a word boundary, or right after a JSON escape (`\n` in an escaped text
 * such as an event's args, where `\b` between the `n` and the token does not hold).
 */
const START = String.raw`(?:(?<=\\[nrt])|\b)`;

/**
 * Names whose value is a password whatever it looks like (`password=hunter2`): the key's last
 * word is one of these.
 */
const PASSWORD_WORDS = 'password|passwd|passphrase|pass|pwd|secrets|secret';
/** Names whose value is a secret when it looks random (`API_TOKEN=…`, `"clientSecret": "…"`). */
const TOKEN_WORDS =
  'tokens|token|keys|key|authorization|auth|credentials|credential|creds|signature|salt|cookie';

/** Values that are references or placeholders, never the secret itself. */
const PLACEHOLDER =
  /^(?:[$<%]|\{\{|\*+$|x{3,}$|\.{3,}$|…|(?:null|none|nil|undefined|true|false|yes|no|env)$|process\.env\b|os\.environ|os\.getenv|getenv\(|ENV\[)/i;

/** True when a value is a real value, not a reference, a placeholder, a number or already redacted. */
export function isRealValue(value: string): boolean {
  return (
    value !== '' && !PLACEHOLDER.test(value) && !/^[\d.,]+$/.test(value) && !value.includes('[redacted:')
  );
}

/** Letters, digits and symbols: how many of the classes a value mixes. */
function classes(value: string): number {
  let n = 0;
  if (/[a-z]/.test(value)) n++;
  if (/[A-Z]/.test(value)) n++;
  if (/\d/.test(value)) n++;
  if (/[^A-Za-z0-9]/.test(value)) n++;
  return n;
}

/** Shannon entropy of a string, in bits per character. */
export function entropy(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** `=`, `:`, `:=`, `=>` with optional spaces and the key's closing quote before it (escaped, in JSON inside JSON). */
const ASSIGN = String.raw`(?:\\?["'])?\s{0,3}(?::=|=>|=|:)\s{0,3}`;
/**
 * A quoted value (its quotes escaped too, in JSON inside a JSON string), or a bare one up to a
 * space, quote, closing bracket or a JSON escape (`\n` between two lines of an escaped text).
 */
const VALUE = String.raw`(?:\\?"(?<dq>(?:[^"\\\n]|\\(?!"))+?)\\?"|'(?<sq>[^'\n]{1,500})'|(?<bare>(?:[^\s"'\x60,;)}\]\\]|\\(?![nrt"\\/u])){1,500}))`;

/** The table; order matters only where two rules could match the same text (specific first). */
export const SECRET_RULES: readonly SecretRule[] = [
  // gitleaks private-key (also truncated blocks: an event clips long text, the END line may be gone)
  {
    kind: 'private-key',
    keywords: ['-----begin'],
    regex: rx(
      String.raw`-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|$)`,
      'gi',
    ),
  },
  // gitleaks anthropic-api-key, anthropic-admin-api-key (and the OAuth token forms)
  {
    kind: 'anthropic-key',
    keywords: ['sk-ant-'],
    regex: rx(String.raw`\bsk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_-]{32,200}${END}`),
  },
  // gitleaks openai-api-key (project, service-account and admin keys; legacy keys with T3BlbkFJ)
  {
    kind: 'openai-key',
    keywords: ['sk-', 't3blbkfj'],
    regex: rx(
      String.raw`\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,250}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{48})${END}`,
    ),
  },
  // gitleaks github-pat, github-oauth, github-app-token, github-refresh-token, github-fine-grained-pat
  {
    kind: 'github-token',
    keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
    regex: rx(String.raw`\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_\w{40,255})${END}`),
    minEntropy: 3,
  },
  // gitleaks gitlab-pat (and the other glxx- prefixes GitLab issues)
  {
    kind: 'gitlab-token',
    keywords: ['glpat-', 'gldt-', 'glrt-', 'glptt-'],
    regex: rx(String.raw`\bgl(?:pat|dt|rt|ptt)-[\w-]{20,64}${END}`),
    minEntropy: 3,
  },
  // gitleaks aws-access-token
  {
    kind: 'aws-access-key',
    keywords: ['akia', 'asia', 'abia', 'acca', 'a3t'],
    regex: rx(String.raw`\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b`),
  },
  // gitleaks gcp-api-key
  {
    kind: 'google-api-key',
    keywords: ['aiza'],
    regex: rx(String.raw`\bAIza[\w-]{35}${END}`),
  },
  // gitleaks gcp OAuth client secret and access token shapes
  {
    kind: 'google-oauth',
    keywords: ['gocspx-', 'ya29.'],
    regex: rx(String.raw`\b(?:GOCSPX-[\w-]{28}|ya29\.[\w-]{30,})${END}`),
  },
  // gitleaks slack-bot-token, slack-user-token, slack-legacy-token, slack-app-token
  {
    kind: 'slack-token',
    keywords: ['xox', 'xapp-'],
    regex: rx(String.raw`\b(?:xox[baprseo]-(?:\d+-)+[A-Za-z0-9-]{8,}|xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+)${END}`),
  },
  // gitleaks slack-webhook-url
  {
    kind: 'slack-webhook',
    keywords: ['hooks.slack.com'],
    regex: rx(String.raw`(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,}`),
  },
  // gitleaks stripe-access-token (secret and restricted keys; publishable pk_ keys are public), webhook secrets
  {
    kind: 'stripe-key',
    keywords: ['sk_', 'rk_', 'whsec_'],
    regex: rx(String.raw`\b(?:(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,99}|whsec_[A-Za-z0-9]{24,})${END}`),
    minEntropy: 2,
  },
  // gitleaks npm-access-token
  { kind: 'npm-token', keywords: ['npm_'], regex: rx(String.raw`\bnpm_[A-Za-z0-9]{36}${END}`) },
  // gitleaks huggingface-access-token
  { kind: 'huggingface-token', keywords: ['hf_'], regex: rx(String.raw`\bhf_[A-Za-z]{34}${END}`) },
  // gitleaks sendgrid-api-token
  {
    kind: 'sendgrid-key',
    keywords: ['sg.'],
    regex: rx(String.raw`\bSG\.[\w-]{22}\.[\w-]{43}${END}`),
  },
  // gitleaks twilio-api-key
  { kind: 'twilio-key', keywords: ['sk'], regex: rx(String.raw`\bSK[0-9a-fA-F]{32}\b`), minEntropy: 3 },
  // gitleaks pypi-upload-token
  {
    kind: 'pypi-token',
    keywords: ['pypi-ageich'],
    regex: rx(String.raw`\bpypi-AgEIcHlwaS5vcmc[\w-]{50,1000}`),
  },
  // gitleaks digitalocean-pat, digitalocean-access-token, digitalocean-refresh-token
  {
    kind: 'digitalocean-token',
    keywords: ['dop_v1_', 'doo_v1_', 'dor_v1_'],
    regex: rx(String.raw`\bdo[opr]_v1_[a-f0-9]{64}${END}`),
  },
  // gitleaks shopify-access-token, shopify-custom-access-token, shopify-private-app-access-token, shopify-shared-secret
  {
    kind: 'shopify-token',
    keywords: ['shpat_', 'shpca_', 'shppa_', 'shpss_'],
    regex: rx(String.raw`${START}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}${END}`),
  },
  // gitleaks databricks-api-token
  {
    kind: 'databricks-token',
    keywords: ['dapi'],
    regex: rx(String.raw`${START}dapi[a-f0-9]{32}(?:-\d)?${END}`),
  },
  // gitleaks hashicorp-vault service and batch tokens (`hvs.`, `hvb.`; `hvr.` recovery tokens too)
  {
    kind: 'vault-token',
    keywords: ['hvs.', 'hvb.', 'hvr.'],
    regex: rx(String.raw`${START}hv[sbr]\.[\w-]{24,300}${END}`),
  },
  // gitleaks age-secret-key
  {
    kind: 'age-secret-key',
    keywords: ['age-secret-key-1'],
    regex: rx(String.raw`${START}AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b`),
  },
  // gitleaks discord-webhook (the URL is the credential: anyone holding it can post)
  {
    kind: 'discord-webhook',
    keywords: ['/api/webhooks/'],
    regex: rx(
      String.raw`(?:https?://)?(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{5,30}/[\w-]{20,100}`,
    ),
  },
  // gitleaks telegram-bot-api-token
  {
    kind: 'telegram-bot-token',
    keywords: [':aa'],
    regex: rx(String.raw`(?<![\d:])\d{5,16}:AA[\w-]{33}${END}`),
  },
  // gitleaks putty private key: the whole key file (its public half is in the same block)
  {
    kind: 'private-key',
    keywords: ['putty-user-key-file-'],
    regex: rx(String.raw`PuTTY-User-Key-File-\d+:[\s\S]*?(?:Private-MAC:[ \t]*[0-9a-fA-F]+|$)`),
  },
  // gitleaks gcp refresh token shape (`1//0…`, `1//0g…`)
  {
    kind: 'google-oauth',
    keywords: ['1//0'],
    regex: rx(String.raw`(?:(?<=\\[nrt])|(?<![\w/]))1//0[\w-]{40,500}${END}`),
  },
  // gitleaks jwt
  {
    kind: 'jwt',
    keywords: ['eyj'],
    regex: rx(String.raw`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}={0,2}`),
    minEntropy: 3,
  },
  // secretlint basicauth / database-connection-string: the password in scheme://user:password@host
  {
    kind: 'url-password',
    keywords: ['://'],
    regex: rx(
      String.raw`\b(?<pre>[a-z][a-z0-9+.-]{1,20}://[^\s:/@"'<>[\]]{0,100}:)(?<secret>[^\s@/"'<>[\]]{1,200})(?=@)`,
      'gi',
    ),
    accept: (secret) => isRealValue(secret),
  },
  // An HTTP Authorization header's credentials.
  {
    kind: 'bearer-token',
    keywords: ['bearer', 'basic '],
    regex: rx(String.raw`\b(?<pre>(?:Bearer|Basic)\s+)(?<secret>[A-Za-z0-9._~+/-]{16,}=*)`, 'gi'),
    accept: (secret) => isRealValue(secret) && entropy(secret) >= 3,
  },
  // `password=hunter2`, `"db_pass": "…"`, `PGPASSWORD=…`: any real value of a password-named key.
  {
    kind: 'password',
    keywords: ['pass', 'pwd', 'secret'],
    regex: rx(`(?<pre>(?:${PASSWORD_WORDS})${ASSIGN})${VALUE}`, 'gi'),
    accept: passwordAccepted,
  },
  // A password given on a command line: `curl -u user:pass` (`--user`), `mysql -pX` (attached:
  // `-p X` would name a database), `sshpass -p X`.
  {
    kind: 'password',
    keywords: ['-u', '--user'],
    regex: rx(
      String.raw`(?<pre>(?:^|[\s;&|(]|(?<=\\[nrt]))(?:-u|--user)[ =]["']?[^\s:"'$]{1,100}:)(?<secret>[^\s"']{1,200})`,
    ),
    accept: (secret) => isRealValue(secret),
  },
  {
    kind: 'password',
    keywords: ['mysql', 'mariadb'],
    regex: rx(
      String.raw`(?<pre>${START}(?:mysql|mysqldump|mysqladmin|mysqlimport|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p)(?<secret>["']?[^\s"'-][^\s"']{0,200})`,
    ),
    accept: (secret) => isRealValue(secret.replace(/^["']/, '')),
  },
  {
    kind: 'password',
    keywords: ['sshpass'],
    regex: rx(
      String.raw`(?<pre>${START}sshpass\s+(?:-[a-oq-z]\s+\S+\s+)*-p\s*["']?)(?<secret>[^\s"']{1,200})`,
    ),
    accept: (secret) => isRealValue(secret),
  },
  // "the password is hunter2": prose that gives the password, not prose about passwords.
  {
    kind: 'password',
    keywords: ['password', 'passphrase', 'passcode'],
    regex: rx(
      String.raw`(?<pre>\b(?:password|passphrase|passcode)\s+(?:is|was|will be|has been set to|is set to)\s+(?:\\?["'\x60])?)(?<secret>[^\s"'\x60\\]{4,200}?)(?=(?:\\?["'\x60])?(?:[\s,;)]|[.!?](?:\s|\\|$)|\\[nrt"]|$))`,
      'gi',
    ),
    accept: (secret) => isRealValue(secret) && !PROSE_WORDS.test(secret),
  },
  // gitleaks generic-api-key: a token-named key (`API_TOKEN=`, `"clientKey":`) with a random-looking value.
  {
    kind: 'generic-secret',
    keywords: ['token', 'key', 'auth', 'cred', 'signature', 'salt', 'cookie'],
    regex: rx(`(?<pre>(?:${TOKEN_WORDS})${ASSIGN})${VALUE}`, 'gi'),
    accept: tokenAccepted,
  },
  // A long hex value under a secret-sounding name outside the lists (`SECRET_KEY_BASE=…`,
  // `signing_key_hex: …`): random hex has only two character classes, below high-entropy's bar.
  {
    kind: 'hex-secret',
    keywords: ['secret', 'key', 'token', 'pass', 'auth', 'sign', 'salt', 'private', 'cred'],
    regex: rx(
      // From the assignment, not the name: a name-first regex backtracked over every word of a
      // source file (+90 µs an event); accept reads the name back from the text.
      String.raw`(?<pre>(?:\\?["'])?\s{0,3}(?::=|=>|=|:)\s{0,3}(?:\\?["'])?)(?<secret>[a-fA-F0-9]{32,512})(?![A-Za-z0-9_-])`,
      'g',
    ),
    accept: (secret, how) => hexSecretAccepted(secret, how),
  },
  // A provider token cut by an event's clipping (`…` at the end of a clipped field): too short
  // for its own rule, still the start of a secret.
  {
    kind: 'clipped-token',
    keywords: ['…'],
    regex: rx(
      String.raw`\b(?:sk-ant-|sk-proj-|sk-svcacct-|sk-admin-|gh[pousr]_|github_pat_|glpat-|xox[baprseo]-|xapp-|AKIA|ASIA|AIza|GOCSPX-|ya29\.|sk_live_|sk_test_|rk_live_|rk_test_|whsec_|npm_|hf_|SG\.|dop_v1_|pypi-AgE|eyJ)[A-Za-z0-9_.\-]*…$`,
    ),
  },
  // A high-entropy value in an environment-style assignment whatever its name (`FOO_URL_SIG=…`).
  {
    kind: 'high-entropy',
    keywords: ['='],
    regex: rx(String.raw`(?<pre>\b[A-Z][A-Z0-9_]{2,60}=["']?)(?<secret>[A-Za-z0-9+/_.=-]{24,500})`, 'g'),
    accept: (secret) => classes(secret.replace(/[+/_.=-]/g, '')) >= 3 && entropy(secret) >= 4.2,
  },
];

/**
 * A password-named key's value is redacted when it is real (not `${VAR}`, `<…>`, `***`) and,
 * unquoted after a colon (`password: must be long` in prose), when it looks like a password:
 * a digit or symbol in it, or 12 characters or more.
 */
function passwordAccepted(value: string, how: ValueInfo): boolean {
  if (!isRealValue(value)) return false;
  // `bypass=`, `compass:`: a word that merely ends in "pass".
  if (/^pass/i.test(how.key) && !/^pass(?:w|p)/i.test(how.key) && /[a-z]/i.test(how.before)) return false;
  if (how.quoted || how.equals) return true;
  return /[^A-Za-z]/.test(value) || value.length >= 12;
}

/** An identifier, not a secret (request and session ids are UUIDs); a password-named key's UUID value is still redacted. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Names whose UUID value is a credential (npm's `_authToken`, `HEROKU_API_KEY`, `apiToken`),
 * unlike an `idempotency_key`, a React `key` or a `request_id`.
 */
const CREDENTIAL_NAME = /auth|api|token|secret|access|private|credential|passw/i;

/** A key name for a hash or an identifier, never a secret (`KEY_FINGERPRINT`, `API_KEY_ID`, `contentHash`). */
const DIGEST_NAME =
  /(?:sha\d*|hash|digest|checksum|fingerprint|integrity|etag|commit|(?:^|[_.-])id)$|[a-z]Id$/i;

/** Words a "the password is …" sentence goes on with when it gives no password. */
const PROSE_WORDS =
  /^(?:wrong|incorrect|invalid|required|missing|empty|blank|correct|right|too|not|now|still|set|stored|saved|hashed|encrypted|hidden|masked|expired|weak|strong|long|short|the|a|an|in|on|at|from|of|for|being|case|changed|reset|needed|optional|mandatory|secret|same|different|unknown|unset|displayed|shown|visible|sent|generated|valid|sensitive|provided|given|usually|always|never|only|what|whatever|your|my|our|their|his|her|this|that|it|one|also|case-sensitive|updated|removed|rotated|mine|yours|ignored|accepted|rejected|taken|used|unchanged)$/i;

/** A hex value under a secret-sounding name: not a digest's or an id's name, mixed digits and letters, random. */
function hexSecretAccepted(value: string, how: ValueInfo): boolean {
  return (
    SECRET_NAME.test(how.name) &&
    !DIGEST_NAME.test(how.name) &&
    /\d/.test(value) &&
    /[a-f]/i.test(value) &&
    entropy(value) >= 3.3
  );
}

/** A name that sounds like it holds a secret (hex-secret's test on the key name). */
const SECRET_NAME = /secret|key|token|pass|auth|sign|salt|private|cred/i;

/**
 * A token-named key's value is redacted when it looks random: 12+ characters with a digit, 3+
 * bits of entropy; a UUID only under a credential's name.
 */
function tokenAccepted(value: string, how: ValueInfo): boolean {
  if (UUID.test(value)) return isRealValue(value) && CREDENTIAL_NAME.test(how.name);
  return (
    isRealValue(value) &&
    value.length >= 12 &&
    !/\s/.test(value) &&
    classes(value) >= 2 &&
    /\d/.test(value) &&
    entropy(value) >= 3
  );
}
