/**
 * Our own credential shapes: the public ecc.memory.v1 format's list (a superset of it: the
 * reference flags provider keys, Stripe, npm, Hugging Face, GitHub, Google, Slack, AWS access key
 * ids and PEM private keys) plus what secretlint's recommended preset does not look for. The
 * preset (11.7.1) finds: AWS secret keys only as `AWS_SECRET_ACCESS_KEY=<40>`, basic auth only in
 * `http(s)`/`ftp(s)` URLs with `[-\w]` user and password, MongoDB/MySQL/PostgreSQL URLs, GitHub
 * tokens of exact length, npm `npm_<36>`, Slack tokens and webhooks, OpenAI and Anthropic keys of
 * their exact formats, Linear, SendGrid (exactly 69 characters), Shopify, 1Password, and PEM
 * private keys with a base64 body of 100+ characters starting `MI`/`b3Bl`. It has no JWT, no
 * `Authorization:` header, no `*_PASSWORD=`/`*_SECRET=` assignment, no Azure key, no PGP or
 * PuTTY key (its PEM body check refuses the PGP armour), no AWS access key id (off by default),
 * no Redis/AMQP/other URL passwords; its GCP rule reads only `.json`/`.p12` files. Those gaps are
 * the shapes below; the detector (detect-secrets.ts) runs both.
 *
 * Each shape is a global regex; `secret` names the group that holds the credential (what a
 * redaction replaces; the whole match otherwise), and `keep` drops matches that are not
 * credentials: placeholders (`PASSWORD=changeme`, `${API_KEY}`, `<token>`, `****`) in the shapes
 * that work from context (assignments, URLs, headers), and vendors' published example values.
 * Token shapes with a vendor prefix keep every match, as the reference does.
 */

/** One credential shape. */
export interface SecretShape {
  /** stable id, e.g. `github-token` */
  id: string;
  /** human label: letters and spaces only (it is shown as `[REDACTED <label>]`) */
  label: string;
  /**
   * A cheap necessary condition, on the lowercased text: lowercase literals separated by `|`,
   * one of which the text holds wherever the shape matches, or a regex that starts with a
   * literal (for the shapes whose literal is a common word: `key`, `token`, `pass`, `://`, where
   * the regex asks for the separator too). All anchors together make one alternation that most
   * text does not match at all (one native scan); a shape runs only when its own anchor is
   * there. A test holds every anchor to every sample of its shape.
   */
  anchor: string | RegExp;
  /** global regex (flag `d` when {@link SecretShape.secret} names a group) */
  pattern: RegExp;
  /** named groups, the first that took part being the credential; the whole match otherwise */
  secret?: readonly string[];
  /**
   * Characters the credential may also hold before the match: the span grows to the left over
   * them (up to 64). For a shape whose distinctive part is at its end (Mailchimp's `-us12`), so
   * that the regex starts from that part instead of at every character.
   */
  grow?: RegExp;
  /** false: the match is not a credential (placeholder, documented example); sees the grown span */
  keep?: (value: string, match: RegExpExecArray) => boolean;
}

/**
 * Example values that vendors publish in their documentation, which are not credentials: AWS's
 * example access key ids (AWS writes them ending in `EXAMPLE`, e.g. `AKIAIOSFODNN7EXAMPLE`, as
 * git-secrets and secretlint allow), its example secret key `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`
 * (exempt in secretlint too), and the sample token of jwt.io. They pass: quoting a vendor's docs
 * in a runbook is not a leak. Anything else of a credential's shape is refused, even if it is
 * called an example.
 */
const EXAMPLE_AWS_SECRET = ['wJalrXUtnFEMI', 'K7MDENG', 'bPxRfiCYEXAMPLEKEY'].join('/');
const EXAMPLE_JWT = [
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9',
  'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ',
  'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
].join('.');

/** Words that stand for a value rather than being one (compared lowercased, `-` and `_` removed). */
const PLACEHOLDER_WORDS = new Set(
  [
    'changeme',
    'changeit',
    'password',
    'passwd',
    'pass',
    'pwd',
    'pw',
    'secret',
    'secrets',
    'token',
    'apikey',
    'key',
    'example',
    'sample',
    'dummy',
    'test',
    'testing',
    'placeholder',
    'redacted',
    'hidden',
    'masked',
    'none',
    'null',
    'nil',
    'undefined',
    'true',
    'false',
    'yes',
    'no',
    'on',
    'off',
    'empty',
    'required',
    'optional',
    'string',
    'str',
    'number',
    'int',
    'bool',
    'boolean',
    'any',
    'unknown',
    'object',
    'value',
    'todo',
    'tbd',
    'fixme',
    'replaceme',
    'default',
    'env',
    'user',
    'username',
    'admin',
    'root',
    'foo',
    'bar',
    'baz',
    'foobar',
    'mypassword',
    'mysecret',
    'mytoken',
    'yourpassword',
    'yoursecret',
    'yourtoken',
    'yourapikey',
    'secretkey',
    'accesskey',
    'privatekey',
    'authtoken',
    'accesstoken',
    'bearer',
    'basic',
    'auth',
  ].map((w) => w.replace(/[-_]/g, '')),
);

/**
 * True when a value found by a context shape (an assignment, a URL, a header) stands for a
 * credential instead of being one: empty, a variable or template (`$X`, `${X}`, `{{x}}`, `%X%`,
 * `<x>`, `[x]`), masked (`****`, `xxxx`, `…`), a placeholder word (`changeme`, `your_password`,
 * `REPLACE_ME`, `example`), a type (`string`), or code (`process.env.X`, `getpass()`).
 */
export function isPlaceholder(raw: string): boolean {
  const v = raw.trim();
  if (v === '') return true;
  // variables and templates: $X ${X} $(cmd) %X% <x> {x} {{x}} [x], and YAML tags (!vault, !Ref)
  if (/^(?:\$[A-Za-z_{(]|%[A-Za-z_]+%|<[^>]*>$|\{[^}]*\}$|\[[^\]]*\]$|![A-Za-z]+$)/.test(v) || /\$\{|\{\{|\$\(/.test(v)) return true;
  // masked or elided: ****, xxxx, ..., …, one character repeated
  if (/^(.)\1*$/.test(v) || /^[*xX\u2022\u00b7.#_-]+$/.test(v) || /\*{3,}|x{4,}|X{4,}|\.\.\.|\u2026/.test(v)) return true;
  const word = v.toLowerCase().replace(/[-_\s]/g, '');
  if (PLACEHOLDER_WORDS.has(word)) return true;
  if (/^(?:your|my|the|some|replace|insert|enter|put|add|set|change)/.test(word) && /(?:password|secret|token|key|here|value|me)$/.test(word)) return true;
  if (/example|placeholder|changeme|redacted|dummy|sample|fake/i.test(v)) return true;
  if (/[()[\]]/.test(v)) return true; // a call or an index: code, not a literal
  if (/^[a-z]+(?:_[a-z]+)+$/.test(v) && /pass|secret|token|key|cred/.test(v)) return true; // the name of a secret (db_password), not its value
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(v) && !/\d/.test(v)) return true; // process.env.X, config.apiKey
  return false;
}

/** A value of a context shape that is long enough and no placeholder. */
const realValue =
  (min: number) =>
  (value: string): boolean =>
    value.length >= min && !isPlaceholder(value);

/** A path, not a password (`PWD=/home/u`, `pwd: C:\work`). */
const notAPath = (value: string): boolean => !/^(?:[/~.]|[A-Za-z]:[\\/])/.test(value);

const shape = (
  id: string,
  label: string,
  anchor: string | RegExp,
  pattern: RegExp,
  more: Partial<Pick<SecretShape, 'secret' | 'keep' | 'grow'>> = {},
): SecretShape => ({
  id,
  label,
  anchor,
  pattern,
  ...more,
});

// The value of an assignment: quoted (spaces allowed), or bare up to a delimiter.
const VALUE = String.raw`(?:"(?<dq>[^"\n]{1,256})"|'(?<sq>[^'\n]{1,256})'|(?<bare>[^\s"'\x60<>;,&]{1,256}))`;
const VALUE_GROUPS = ['dq', 'sq', 'bare'] as const;
const ASSIGN = String.raw`(?<kq>["'])?[ \t]*(?<sep>:=|=>|=|:)[ \t]*`;

/**
 * The value of an assignment is a credential when it is long enough and no placeholder. A
 * `name: value` with neither side quoted may be prose ("password: see the vault"), so there the
 * value must end its line (a YAML line) or look like a credential (8+ characters mixing letters
 * and digits).
 */
const assignedValue =
  (min: number) =>
  (value: string, m: RegExpExecArray): boolean => {
    if (value.length < min || isPlaceholder(value) || value.endsWith(':')) return false;
    const g = m.groups ?? {};
    if (g.bare === undefined || g.sep !== ':' || g.kq !== undefined) return true;
    const end = m.index + m[0].length;
    if (/^[ \t]*(?:[,}\]#]|\r?\n|$)/.test(m.input.slice(end, end + 80))) return true;
    return value.length >= 8 && /\d/.test(value) && /[A-Za-z]/.test(value);
  };

/** The shapes, in the order a redaction labels overlapping findings. */
const buildShapes = (): readonly SecretShape[] => [
  // --- the reference format's shapes (a superset of each) ---
  // A token glued to a letter or digit is not a usable credential as written; the reference's \b
  // refuses the same (it also refuses one after "_", which is flagged here).
  shape('provider-api-key', 'provider API key', 'sk-', /(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{16,}/gi),
  shape('stripe-key', 'Stripe key', 'k_live_|k_test_', /[sr]k_(?:live|test)_[A-Za-z0-9]{16,}/g),
  shape('stripe-webhook-secret', 'Stripe key', 'whsec_', /whsec_[A-Za-z0-9]{24,}/g),
  shape('npm-token', 'npm token', 'npm_', /npm_[A-Za-z0-9]{20,}/g),
  shape('huggingface-token', 'Hugging Face token', 'hf_', /hf_[A-Za-z0-9]{20,}/g),
  shape('github-token', 'GitHub token', 'ghp_|gho_|ghu_|ghs_|ghr_', /gh[pousr]_[A-Za-z0-9]{16,}/g),
  shape('github-fine-grained-token', 'GitHub token', 'github_pat_', /github_pat_[A-Za-z0-9_]{16,}/g),
  shape('google-api-key', 'Google API key', 'aiza', /AIza[A-Za-z0-9_-]{16,}/g),
  shape('slack-token', 'Slack token', 'xox|xapp-', /xox[abposr]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,}/g),
  shape('aws-access-key-id', 'AWS access key', /(?:akia|asia|abia|acca)[a-z0-9]{16}/, /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}/g, {
    keep: (v) => !v.endsWith('EXAMPLE'),
  }),
  // The whole block (BEGIN to END, or to the end of the text when the END line is missing: a cut
  // paste), so that a redaction removes the key lines. Tolerant of what breaks a header: missing
  // or extra spaces, line breaks, lowercase, four dashes; covers PGP's "PRIVATE KEY BLOCK".
  shape(
    'private-key',
    'private key',
    /begin[a-z0-9\s]{0,60}?private/,
    /-{2,}\s*BEGIN[A-Z0-9\s]{0,60}?PRIVATE\s*KEY(?:\s*BLOCK)?\s*-{2,}(?:[\s\S]*?-{2,}\s*END[A-Z0-9\s]{0,60}?PRIVATE\s*KEY(?:\s*BLOCK)?\s*-{2,}|[\s\S]*)/gi,
  ),
  // --- gaps of the reference and of secretlint's preset ---
  // A key body without its header (the DER of RSA, PKCS#8, EC and Ed25519 keys, OpenSSH's
  // "openssh-key-v1"), base64 lines to the first character that is not base64.
  shape(
    'private-key-body',
    'private key',
    /mii[a-z0-9+/]{3}iba|mig[a-z0-9+/]agea|mhccaqeei|migkagebbda|mc4caqaw|b3blbnnzac1rzxktdje/,
    /(?:MII[A-Za-z0-9+/]{3}IBAAK|MII[A-Za-z0-9+/]{3}IBADAN|MIG[A-Za-z0-9+/]AgEAMBMGByqGSM49|MHcCAQEEI|MIGkAgEBBDA|MC4CAQAwBQYDK2Vw|b3BlbnNzaC1rZXktdjE)(?:[A-Za-z0-9+/=\\]|\r?\n){40,}/g,
  ),
  shape(
    'putty-private-key',
    'PuTTY private key',
    'putty-user-key-file|private-lines',
    /PuTTY-User-Key-File-\d+:[\s\S]*?(?:Private-MAC:[ \t]*[0-9A-Fa-f]*|$)|Private-Lines:\s*\d+\s+[A-Za-z0-9+/=\s]{16,}/g,
  ),
  shape('age-secret-key', 'age secret key', 'age-secret-key-1', /AGE-SECRET-KEY-1[0-9A-Z]{50,}/g),
  shape('jwt', 'JSON Web Token', 'eyj', /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, {
    keep: (v) => v !== EXAMPLE_JWT,
  }),
  shape(
    'aws-secret-access-key',
    'AWS secret access key',
    /secret[_.-]?(?:access)?[_.-]?key/,
    /secret[_.-]?(?:access)?[_.-]?key["']?(?:\s*(?::|=>|=)\s*|\s+)["']?(?<key>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/dgi,
    { secret: ['key'], keep: (v) => v !== EXAMPLE_AWS_SECRET },
  ),
  // an access key id followed by its secret key (a CSV of credentials, `aws configure` output)
  shape(
    'aws-key-pair',
    'AWS secret access key',
    /(?:akia|asia)[a-z0-9]{16}/,
    /(?:AKIA|ASIA)[A-Z0-9]{16}[\s,;:|"']{1,8}(?<key>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/dg,
    {
      secret: ['key'],
      keep: (v) => v !== EXAMPLE_AWS_SECRET,
    },
  ),
  shape(
    'aws-session-token',
    'AWS session token',
    /session[_.-]?token/,
    /session[_.-]?token["']?(?:\s*(?::|=>|=)\s*|\s+)["']?(?<token>[A-Za-z0-9/+=]{100,})/dgi,
    {
      secret: ['token'],
    },
  ),
  shape(
    'gitlab-token',
    'GitLab token',
    'glpat-|gldt-|glrt-|glptt-|glcbt-|gloas-|glft-|glimt-|glsoat-|glagent-',
    /gl(?:pat|dt|rt|ptt|cbt|oas|ft|imt|soat|agent)-[A-Za-z0-9_-]{20,}/g,
  ),
  shape('google-oauth-secret', 'Google OAuth secret', 'gocspx-', /GOCSPX-[A-Za-z0-9_-]{20,}/g),
  shape('google-oauth-token', 'Google OAuth token', 'ya29.|1//0', /ya29\.[A-Za-z0-9_-]{20,}|(?<![A-Za-z0-9])1\/\/0[A-Za-z0-9_-]{40,}/g),
  shape('slack-webhook', 'Slack webhook', 'hooks.slack.com', /hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/]{10,}/gi),
  shape('discord-webhook', 'Discord webhook', '/api/webhooks/', /discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]{20,}/gi),
  shape(
    'discord-bot-token',
    'Discord bot token',
    /\.[a-z0-9_-]{6}\.[a-z0-9_-]{27}/,
    /(?<![A-Za-z0-9_-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/g,
  ),
  shape('telegram-bot-token', 'Telegram bot token', ':aa', /(?<![0-9])\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g),
  shape('sendgrid-key', 'SendGrid key', /sg\.[a-z0-9_-]{16}/, /SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}/g),
  shape('mailchimp-key', 'Mailchimp key', /-us\d/, /-us[0-9]{1,2}(?![0-9])/g, { grow: /[0-9a-f]/, keep: (v) => /^[0-9a-f]{32}-/.test(v) }),
  shape('twilio-key', 'Twilio key', /sk[0-9a-f]{32}/, /(?<![A-Za-z0-9])SK[0-9a-f]{32}(?![0-9a-f])/g),
  shape('shopify-token', 'Shopify token', 'shpat_|shpca_|shppa_|shpss_', /shp(?:at|ca|pa|ss)_[A-Za-z0-9]{32,}/g),
  shape('linear-key', 'Linear key', 'lin_api_|lin_oauth_', /lin_(?:api|oauth)_[A-Za-z0-9]{32,}/g),
  shape('onepassword-token', 'OnePassword token', 'ops_ey', /ops_ey[A-Za-z0-9+/=_-]{50,}/g),
  shape('atlassian-token', 'Atlassian token', 'atatt3', /ATATT3[A-Za-z0-9_=-]{50,}/g),
  shape('digitalocean-token', 'DigitalOcean token', '_v1_', /do[opr]_v1_[a-f0-9]{64}/g),
  shape('databricks-token', 'Databricks token', 'dapi', /dapi[a-f0-9]{32}(?:-\d)?/g),
  shape('pypi-token', 'PyPI token', 'pypi-', /pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40,}/g),
  shape('postman-key', 'Postman key', 'pmak-', /PMAK-[a-f0-9]{24}-[a-f0-9]{34}/g),
  shape('grafana-token', 'Grafana token', 'glsa_|glc_', /gl(?:sa|c)_[A-Za-z0-9+/_=]{32,}/g),
  shape('hashicorp-token', 'HashiCorp token', 'hvs.|hvb.|hvr.|.atlasv1.', /hv[sbr]\.[A-Za-z0-9_-]{24,}|\.atlasv1\.[A-Za-z0-9_-]{60,}/g),
  shape('docker-hub-token', 'Docker Hub token', 'dckr_pat_', /dckr_pat_[A-Za-z0-9_-]{20,}/g),
  shape('doppler-token', 'Doppler token', /dp\.(?:st|ct|sa|scim|audit|pt)\./, /dp\.(?:st|ct|sa|scim|audit|pt)\.[A-Za-z0-9_-]{30,}/g),
  shape(
    'service-token',
    'service API token',
    'gsk_|xai-|r8_|tskey-|ntn_|figd_|sntrys_|sntryu_|sbp_|sq0atp-|sq0csp-|pscale_|hrku-|fo1_',
    /(?:gsk_[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{40,}|r8_[A-Za-z0-9]{30,}|tskey-[a-z]+-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,}|ntn_[A-Za-z0-9]{40,}|figd_[A-Za-z0-9_-]{30,}|sntry[su]_[A-Za-z0-9+/=_]{40,}|sbp_[a-f0-9]{40}|sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}|pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{30,}|HRKU-[A-Za-z0-9_-]{40,}|fo1_[A-Za-z0-9_-]{40,})/g,
  ),
  shape('azure-ad-secret', 'Azure client secret', 'q~', /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g),
  // --- shapes from context: the value after a name that says it is a credential ---
  shape(
    'azure-storage-key',
    'Azure key',
    'accountkey|sharedaccess|sharedkey',
    /(?:AccountKey|SharedAccessKey|SharedAccessSignature|SharedKey)\s*=\s*["']?(?<key>[A-Za-z0-9+/%]{16,}={0,2})/dgi,
    { secret: ['key'], keep: realValue(16) },
  ),
  shape('azure-sas-signature', 'Azure key', /sig=[a-z0-9%+/]{30}/, /[?&;]sig=(?<sig>[A-Za-z0-9%+/]{30,}(?:%3D|=)*)/dgi, {
    secret: ['sig'],
    keep: realValue(30),
  }),
  // `scheme://user:password@host`, any scheme (redis://:pw@, amqp://, postgres+psycopg://); the
  // password may hold "@" (the last "@" before the host ends it)
  shape(
    'url-password',
    'password in a URL',
    /:\/\/[^\s:/?#@'"]*:[^\s/?#'"]+@/,
    /(?<=[A-Za-z0-9+.-]):\/\/(?<user>[^\s:/?#@'"]*):(?<pw>[^\s/?#'"]+)@(?=[A-Za-z0-9[_-])/dg,
    {
      secret: ['pw'],
      keep: (pw) => !isPlaceholder(pw),
    },
  ),
  shape(
    'authorization-header',
    'Authorization header credential',
    /authorization["']?\s*[:=]/,
    /(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|bot|digest|apikey|api-key|sso-key|negotiate)\s+(?<cred>[A-Za-z0-9._~+/=:-]{6,})/dgi,
    { secret: ['cred'], keep: realValue(6) },
  ),
  shape('bearer-token', 'Authorization header credential', /bearer\s+[a-z0-9._~+/-]{20}/, /\bBearer\s+(?<cred>[A-Za-z0-9._~+/-]{20,}=*)/dg, {
    secret: ['cred'],
    keep: (v) => /\d/.test(v) && realValue(20)(v),
  }),
  shape(
    'npm-registry-credential',
    'npm registry credential',
    /_(?:authtoken|auth|password)\s*=/,
    /(?:^|[\s:'"])_(?:authToken|auth|password)\s*=\s*["']?(?<cred>[^\s"'$]{8,})/dgm,
    {
      secret: ['cred'],
      keep: realValue(8),
    },
  ),
  shape('docker-registry-auth', 'registry credential', /"auth"\s*:\s*"/, /"auth"\s*:\s*"(?<cred>[A-Za-z0-9+/]{12,}={0,2})"/dg, {
    secret: ['cred'],
    keep: realValue(12),
  }),
  shape(
    'netrc-password',
    'password assignment',
    /machine\s+\S+\s+(?:login|password)/,
    /(?<![A-Za-z0-9])machine\s+\S+\s+(?:login\s+\S+\s+)?password\s+(?<pw>[^\s"'<>]+)/dg,
    {
      secret: ['pw'],
      keep: realValue(1),
    },
  ),
  // `DB_PASSWORD=...`, `"password": "..."`, `password: ...`, `--password=...`, `?password=...`
  shape(
    'password-assignment',
    'password assignment',
    /(?:pass(?:word|wd|phrase|code)|pwd)(?:[_-]?\d+)?["']?[ \t]*[:=]/,
    new RegExp(String.raw`(?:pass(?:word|wd|phrase|code)|pwd(?<![a-z]pwd))(?:[_-]?\d+)?${ASSIGN}${VALUE}`, 'dgi'),
    { secret: VALUE_GROUPS, keep: (v, m) => assignedValue(1)(v, m) && notAPath(v) },
  ),
  // `*_SECRET=...`, `client_secret: ...`, `SECRET_KEY_BASE=...`
  shape(
    'secret-assignment',
    'secret assignment',
    /secret(?:[_-]?key(?:[_-]?base)?)?(?:[_-]?\d+)?["']?[ \t]*[:=]/,
    new RegExp(String.raw`secret(?:[_-]?key(?:[_-]?base)?)?(?:[_-]?\d+)?${ASSIGN}${VALUE}`, 'dgi'),
    {
      secret: VALUE_GROUPS,
      keep: assignedValue(4),
    },
  ),
  // `GITHUB_TOKEN=...`, `api_key: ...`, `X-API-Key: ...` (not a page token or a count)
  shape(
    'token-assignment',
    'token or key assignment',
    /(?:token|key)(?:[_-]?\d+)?["']?[ \t]*[:=]/,
    new RegExp(
      String.raw`(?:token(?<!(?:page|continuation|sync|next|cancellation)[_-]?token)|key(?<=(?:api|access|auth|private|client|app|service|account|master|encryption|signing|subscription|license)[_-]?key))(?:[_-]?\d+)?${ASSIGN}${VALUE}`,
      'dgi',
    ),
    { secret: VALUE_GROUPS, keep: assignedValue(8) },
  ),
  // YAML with the value on the next line: `password:` or `password: |` (a block scalar), then the
  // value alone on an indented line (prose after a bare `password:` has spaces and is not taken)
  shape(
    'yaml-next-line-credential',
    'password assignment',
    /(?:pass(?:word|wd|phrase|code)|pwd|secret|token|key)["']?[ \t]*:[ \t]*(?:[|>][+-]?[ \t]*)?\r?\n[ \t]/,
    new RegExp(
      String.raw`(?:pass(?:word|wd|phrase|code)|pwd(?<![a-z]pwd)|secret(?:[_-]?key)?|(?:api|access|auth|private|client|app|service|signing)[_-]?(?:key|token)|token(?<!(?:page|continuation|sync|next|cancellation)[_-]?token))(?:[_-]?\d+)?(?<kq>["'])?[ \t]*:[ \t]*(?:[|>][+-]?[ \t]*)?\r?\n[ \t]+${VALUE}[ \t]*(?=\r?\n|$)`,
      'dgi',
    ),
    { secret: VALUE_GROUPS, keep: (v) => v.length >= 8 && !isPlaceholder(v) && notAPath(v) && /\d/.test(v) && /[A-Za-z]/.test(v) },
  ),
  // an environment list of Kubernetes or CI YAML: `- name: DB_PASSWORD` then `value: ...` (the
  // name's word in a lookahead: a long name of repeated words is not scanned again per word)
  shape(
    'yaml-name-value-credential',
    'password assignment',
    /name:[ \t]*["']?(?=[a-z0-9_.-]*?(?:passw|passphrase|secret|token|api[_-]?key|private[_-]?key))[a-z0-9_.-]+["']?[ \t]*\r?\n[ \t-]*value:/,
    new RegExp(
      String.raw`name:[ \t]*["']?(?=[A-Za-z0-9_.-]*?(?:passw(?:or)?d|passphrase|secret|token|api[_-]?key|private[_-]?key))[A-Za-z0-9_.-]+["']?[ \t]*\r?\n[ \t-]*value:[ \t]*${VALUE}`,
      'dgi',
    ),
    { secret: VALUE_GROUPS, keep: realValue(8) },
  ),
  // `--password hunter2`, `--token abc...` on a command line
  shape(
    'credential-flag',
    'password assignment',
    /--(?:passw|token|api-key|secret|client-secret|access-key)/,
    /--(?:password|passwd|token|api-key|secret|client-secret|access-key|secret-access-key)\s+["']?(?<cred>[^\s"'-][^\s"']*)/dgi,
    {
      secret: ['cred'],
      keep: realValue(4),
    },
  ),
];
let shapes: readonly SecretShape[] | undefined;
/**
 * The shapes, built on first use: a text whose lowercased form holds none of
 * {@link ANCHOR_LITERALS} and matches none of {@link ANCHOR_REGEXES} needs none of them, and a
 * hook process that meets no such text never compiles the table (a few milliseconds).
 */
export function secretShapes(): readonly SecretShape[] {
  shapes ??= buildShapes();
  return shapes;
}

/**
 * Every literal of every shape's anchor (a test holds this list to the table): with
 * {@link ANCHOR_REGEXES}, what the detector's first scan looks for, without building the table.
 */
export const ANCHOR_LITERALS: readonly string[] = [
  'sk-',
  'k_live_',
  'k_test_',
  'whsec_',
  'npm_',
  'hf_',
  'ghp_',
  'gho_',
  'ghu_',
  'ghs_',
  'ghr_',
  'github_pat_',
  'aiza',
  'xox',
  'xapp-',
  'putty-user-key-file',
  'private-lines',
  'age-secret-key-1',
  'eyj',
  'glpat-',
  'gldt-',
  'glrt-',
  'glptt-',
  'glcbt-',
  'gloas-',
  'glft-',
  'glimt-',
  'glsoat-',
  'glagent-',
  'gocspx-',
  'ya29.',
  '1//0',
  'hooks.slack.com',
  '/api/webhooks/',
  ':aa',
  'shpat_',
  'shpca_',
  'shppa_',
  'shpss_',
  'lin_api_',
  'lin_oauth_',
  'ops_ey',
  'atatt3',
  '_v1_',
  'dapi',
  'pypi-',
  'pmak-',
  'glsa_',
  'glc_',
  'hvs.',
  'hvb.',
  'hvr.',
  '.atlasv1.',
  'dckr_pat_',
  'gsk_',
  'xai-',
  'r8_',
  'tskey-',
  'ntn_',
  'figd_',
  'sntrys_',
  'sntryu_',
  'sbp_',
  'sq0atp-',
  'sq0csp-',
  'pscale_',
  'hrku-',
  'fo1_',
  'q~',
  'accountkey',
  'sharedaccess',
  'sharedkey',
];
/** The anchors that are regexes (a test holds this list to the table too). */
export const ANCHOR_REGEXES: readonly RegExp[] = [
  /(?:akia|asia|abia|acca)[a-z0-9]{16}/,
  /begin[a-z0-9\s]{0,60}?private/,
  /mii[a-z0-9+/]{3}iba|mig[a-z0-9+/]agea|mhccaqeei|migkagebbda|mc4caqaw|b3blbnnzac1rzxktdje/,
  /secret[_.-]?(?:access)?[_.-]?key/,
  /(?:akia|asia)[a-z0-9]{16}/,
  /session[_.-]?token/,
  /\.[a-z0-9_-]{6}\.[a-z0-9_-]{27}/,
  /sg\.[a-z0-9_-]{16}/,
  /-us\d/,
  /sk[0-9a-f]{32}/,
  /dp\.(?:st|ct|sa|scim|audit|pt)\./,
  /sig=[a-z0-9%+/]{30}/,
  /:\/\/[^\s:/?#@'"]*:[^\s/?#'"]+@/,
  /authorization["']?\s*[:=]/,
  /bearer\s+[a-z0-9._~+/-]{20}/,
  /_(?:authtoken|auth|password)\s*=/,
  /"auth"\s*:\s*"/,
  /machine\s+\S+\s+(?:login|password)/,
  /(?:pass(?:word|wd|phrase|code)|pwd)(?:[_-]?\d+)?["']?[ \t]*[:=]/,
  /secret(?:[_-]?key(?:[_-]?base)?)?(?:[_-]?\d+)?["']?[ \t]*[:=]/,
  /(?:token|key)(?:[_-]?\d+)?["']?[ \t]*[:=]/,
  /--(?:passw|token|api-key|secret|client-secret|access-key)/,
  /(?:pass(?:word|wd|phrase|code)|pwd|secret|token|key)["']?[ \t]*:[ \t]*(?:[|>][+-]?[ \t]*)?\r?\n[ \t]/,
  /name:[ \t]*["']?(?=[a-z0-9_.-]*?(?:passw|passphrase|secret|token|api[_-]?key|private[_-]?key))[a-z0-9_.-]+["']?[ \t]*\r?\n[ \t-]*value:/,
];
