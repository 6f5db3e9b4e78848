/**
 * The secret-detection corpus shared by the unit, CLI, hook and doctor tests: credential shapes
 * that must be refused and redacted, and look-alikes that must pass.
 *
 * Every credential is fake and built at run time from a seeded generator and short pieces, so
 * that no file of this repository holds a real-looking secret in one piece (push protection and
 * secret scanners would rightly stop it).
 */

/** A credential in context: the text to save or say, and the parts that must never be echoed. */
export interface SecretCase {
  name: string;
  /** the text holding the credential (what is saved, or said in a transcript) */
  text: string;
  /** random parts of the credential: none may appear in any output, nor their first 12 characters */
  secrets: string[];
}

/** A look-alike that is not a credential: it must be saved and kept in snapshots unchanged. */
export interface BenignCase {
  name: string;
  text: string;
}

/** A small deterministic generator (mulberry32), seeded by the case's name. */
function generator(seed: string): () => number {
  let h = 1779033703;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABETS = {
  b62: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  upper: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567',
  hex: '0123456789abcdef',
  digits: '0123456789',
  b64: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
  url: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
  bech32: 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L',
} as const;

/** Random strings for one case. */
function randoms(seed: string) {
  const next = generator(seed);
  const of = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
  return {
    b62: (n: number) => of(ALPHABETS.b62, n),
    upper: (n: number) => of(ALPHABETS.upper, n),
    hex: (n: number) => of(ALPHABETS.hex, n),
    digits: (n: number) => of(ALPHABETS.digits, n),
    b64: (n: number) => of(ALPHABETS.b64, n),
    url: (n: number) => of(ALPHABETS.url, n),
    bech32: (n: number) => of(ALPHABETS.bech32, n),
    /** a password: letters, digits and a few symbols, always mixed */
    pw: () => `${of(ALPHABETS.b62, 6)}9${of('!#%^*~', 1)}${of(ALPHABETS.b62, 5)}`,
  };
}

const join = (...parts: string[]) => parts.join('');
const b64 = (s: string) => Buffer.from(s).toString('base64');
const b64url = (s: string) => Buffer.from(s).toString('base64url');
/** Base64 lines of a PEM body, 64 characters each. */
const pemLines = (body: string) => body.match(/.{1,64}/g)!.join('\n');
const pem = (kind: string, body: string) => join('-----BEGIN ', kind, ' KEY-----\n', pemLines(body), '\n-----END ', kind, ' KEY-----');

type Build = (r: ReturnType<typeof randoms>) => { text: string; secrets: string[] };
const CASES: Array<[string, Build]> = [
  ['OpenAI project key', (r) => ((s) => ({ text: join('OPENAI key: sk', '-proj-', s), secrets: [s] }))(r.url(48))],
  ['Anthropic API key', (r) => ((s) => ({ text: join('use sk', '-ant-api03-', s, 'AA for the eval'), secrets: [s] }))(r.url(93))],
  ['Stripe live secret key', (r) => ((s) => ({ text: join('STRIPE=sk', '_live_', s), secrets: [s] }))(r.b62(24))],
  ['Stripe restricted key', (r) => ((s) => ({ text: join('key rk', '_live_', s), secrets: [s] }))(r.b62(24))],
  ['Stripe webhook secret', (r) => ((s) => ({ text: join('signing secret is whs', 'ec_', s), secrets: [s] }))(r.b62(32))],
  ['npm token', (r) => ((s) => ({ text: join('NPM token npm', '_', s), secrets: [s] }))(r.b62(36))],
  ['npmrc auth token', (r) => ((s) => ({ text: join('//registry.npmjs.org/:_auth', 'Token=', s), secrets: [s] }))(r.url(40))],
  ['Hugging Face token', (r) => ((s) => ({ text: join('HF hf', '_', s), secrets: [s] }))(r.b62(34))],
  ['GitHub classic token', (r) => ((s) => ({ text: join('token gh', 'p_', s), secrets: [s] }))(r.b62(36))],
  ['GitHub OAuth token', (r) => ((s) => ({ text: join('oauth gh', 'o_', s), secrets: [s] }))(r.b62(36))],
  ['GitHub fine-grained token', (r) => ((s, t) => ({ text: join('github', '_pat_', s, '_', t), secrets: [s, t] }))(r.b62(22), r.b62(59))],
  ['GitLab token', (r) => ((s) => ({ text: join('gl', 'pat-', s), secrets: [s] }))(r.url(20))],
  ['Google API key', (r) => ((s) => ({ text: join('maps key AI', 'za', s), secrets: [s] }))(r.url(35))],
  ['Google OAuth client secret', (r) => ((s) => ({ text: join('client secret GOC', 'SPX-', s), secrets: [s] }))(r.url(28))],
  ['Google OAuth access token', (r) => ((s) => ({ text: join('access ya', '29.', s), secrets: [s] }))(r.url(60))],
  ['Slack bot token', (r) => ((s) => ({ text: join('slack xo', 'xb-', r.digits(12), '-', r.digits(13), '-', s), secrets: [s] }))(r.b62(24))],
  [
    'Slack webhook',
    (r) => ((s) => ({ text: join('post to https://hooks.slack', '.com/services/T', r.upper(8), '/B', r.upper(10), '/', s), secrets: [s] }))(r.b62(24)),
  ],
  ['Discord webhook', (r) => ((s) => ({ text: join('https://discord', '.com/api/webhooks/', r.digits(18), '/', s), secrets: [s] }))(r.url(68))],
  ['Telegram bot token', (r) => ((s) => ({ text: join('bot ', r.digits(10), ':A', 'A', s), secrets: [s] }))(r.url(33))],
  ['AWS access key id', (r) => ((s) => ({ text: join('AWS_ACCESS_KEY_ID=AK', 'IA', s), secrets: [s] }))(r.upper(16))],
  ['AWS secret key in an env line', (r) => ((s) => ({ text: join('export AWS_SECRET', '_ACCESS_KEY=', s), secrets: [s] }))(r.b64(40))],
  ['AWS secret key in ~/.aws/credentials', (r) => ((s) => ({ text: join('[default]\naws_secret', '_access_key = ', s, '\n'), secrets: [s] }))(r.b64(40))],
  ['AWS secret key in STS JSON', (r) => ((s) => ({ text: join('{"Credentials": {"Secret', 'AccessKey": "', s, '"}}'), secrets: [s] }))(r.b64(40))],
  ['AWS session token', (r) => ((s) => ({ text: join('aws_session', '_token = ', s), secrets: [s] }))(r.b64(320))],
  ['AWS key pair in a CSV', (r) => ((s) => ({ text: join('Access key ID,Secret access key\nAK', 'IA', r.upper(16), ',', s), secrets: [s] }))(r.b64(40))],
  [
    'RSA private key (PEM)',
    (r) =>
      ((s) => ({ text: join('deploy key:\n', pem('RSA PRIVATE', join('MIIEpAIBAAKCAQEA', s))), secrets: pemLines(s).split('\n').slice(0, -1) }))(r.b64(1200)),
  ],
  [
    'OpenSSH private key',
    (r) =>
      ((s) => ({ text: pem('OPENSSH PRIVATE', join('b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ', s)), secrets: pemLines(s).split('\n').slice(0, -1) }))(
        r.b64(380),
      ),
  ],
  ['EC private key (PEM)', (r) => ((s) => ({ text: pem('EC PRIVATE', join('MHcCAQEEI', s)), secrets: pemLines(s).split('\n').slice(0, -1) }))(r.b64(170))],
  [
    'PGP private key block',
    (r) =>
      ((s) => ({
        text: join('-----BEGIN PGP PRIVATE KEY', ' BLOCK-----\n\n', pemLines(join('lQOYBG', s)), '\n=', r.b64(4), '\n-----END PGP PRIVATE KEY BLOCK-----'),
        secrets: pemLines(s).split('\n').slice(0, -1),
      }))(r.b64(900)),
  ],
  [
    'PuTTY private key',
    (r) =>
      ((s) => ({
        text: join(
          'PuTTY-User-Key-',
          'File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n',
          r.b64(64),
          '\n',
          r.b64(20),
          '\nPrivate-Lines: 1\n',
          s,
          '\nPrivate-MAC: ',
          r.hex(64),
        ),
        secrets: [s],
      }))(r.b64(44)),
  ],
  [
    'PEM header broken by a CR',
    (r) =>
      ((s) => ({
        text: join('-----BEGIN RSA\rPRIVATE', ' KEY-----\n', pemLines(join('MIIEowIBAAKCAQEA', s)), '\n-----END RSA PRIVATE KEY-----'),
        secrets: pemLines(s).split('\n').slice(0, -1),
      }))(r.b64(600)),
  ],
  [
    'PEM header broken by a C1 control',
    (r) =>
      ((s) => ({
        text: join('-----BEGIN\u0085RSA PRIVATE', ' KEY-----\n', pemLines(join('MIIEowIBAAKCAQEA', s)), '\n-----END RSA PRIVATE KEY-----'),
        secrets: pemLines(s).split('\n').slice(0, -1),
      }))(r.b64(600)),
  ],
  [
    'private key body without its header',
    (r) =>
      ((s) => ({ text: join('the key was:\n', pemLines(join('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', s))), secrets: pemLines(s).split('\n').slice(0, -1) }))(
        r.b64(640),
      ),
  ],
  [
    'JSON Web Token',
    (r) =>
      ((s, p) => ({ text: join('cookie: session=', b64url('{"alg":"HS256","typ":"JWT"}'), '.', p, '.', s), secrets: [s, p.slice(0, 20)] }))(
        r.url(43),
        b64url(JSON.stringify({ sub: r.b62(12), iat: 1_700_000_000 })),
      ),
  ],
  ['password in an https URL', (r) => ((s) => ({ text: join('git clone https://deploy:', s, '@git.internal.example.net/app.git'), secrets: [s] }))(r.pw())],
  ['password in a postgres URL', (r) => ((s) => ({ text: join('DATABASE_URL=postgres', '://app:', s, '@db.internal:5432/prod'), secrets: [s] }))(r.pw())],
  ['password in a mongodb+srv URL', (r) => ((s) => ({ text: join('mongodb', '+srv://svc:', s, '@cluster0.ab1cd.mongodb.net/app'), secrets: [s] }))(r.pw())],
  ['password in a redis URL without a user', (r) => ((s) => ({ text: join('REDIS_URL=redis', '://:', s, '@cache.internal:6379/0'), secrets: [s] }))(r.pw())],
  ['password in an amqp URL', (r) => ((s) => ({ text: join('amqp', '://guest:', s, '@mq.internal:5672'), secrets: [s] }))(r.pw())],
  ['password holding an @ in a URL', (r) => ((s) => ({ text: join('mysql', '://root:P@', s, '@db:3306/shop'), secrets: [s] }))(r.b62(10))],
  ['Authorization Bearer header', (r) => ((s) => ({ text: join('Authorization: Bea', 'rer ', s), secrets: [s] }))(r.url(40))],
  ['Authorization Basic header', (r) => ((s) => ({ text: join('Authorization: Ba', 'sic ', s), secrets: [s] }))(b64(join('deploy:', r.pw(), r.b62(4))))],
  [
    'Authorization header in curl',
    (r) => ((s) => ({ text: join('curl -H "Authorization: to', 'ken ', s, '" https://api.example.com/v1'), secrets: [s] }))(r.b62(30)),
  ],
  ['*_PASSWORD= assignment', (r) => ((s) => ({ text: join('DB_PASS', 'WORD=', s), secrets: [s] }))(r.pw())],
  ['*_SECRET= assignment', (r) => ((s) => ({ text: join('CLIENT_SEC', 'RET=', s), secrets: [s] }))(r.b62(32))],
  ['password in JSON', (r) => ((s) => ({ text: join('{"user": "svc", "pass', 'word": "', s, '"}'), secrets: [s] }))(r.pw())],
  ['password in YAML', (r) => ((s) => ({ text: join('db:\n  pass', 'word: ', s, '\n  host: db'), secrets: [s] }))(r.pw())],
  ['password in YAML, on the next line', (r) => ((s) => ({ text: join('db:\n  pass', 'word:\n    ', s, '\n  host: db'), secrets: [s] }))(r.pw())],
  ['password in a YAML block scalar', (r) => ((s) => ({ text: join('db:\n  pass', 'word: >-\n    ', s, '\n  host: db'), secrets: [s] }))(r.pw())],
  ['password in a Kubernetes env list', (r) => ((s) => ({ text: join('env:\n  - name: DB_PASS', 'WORD\n    value: "', s, '"'), secrets: [s] }))(r.pw())],
  ['SECRET_KEY_BASE', (r) => ((s) => ({ text: join('SECRET_KEY', '_BASE=', s), secrets: [s] }))(r.hex(128))],
  ['API token assignment', (r) => ((s) => ({ text: join('API_TOK', 'EN=', s), secrets: [s] }))(r.b62(32))],
  ['X-API-Key header', (r) => ((s) => ({ text: join('X-API-K', 'ey: ', s), secrets: [s] }))(r.b62(32))],
  [
    'Azure storage connection string',
    (r) =>
      ((s) => ({ text: join('DefaultEndpointsProtocol=https;AccountName=acct;Account', 'Key=', s, '==;EndpointSuffix=core.windows.net'), secrets: [s] }))(
        r.b64(86),
      ),
  ],
  [
    'Azure SAS URL',
    (r) => ((s) => ({ text: join('https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&srt=o&sp=r&si', 'g=', s, '%3D'), secrets: [s] }))(r.b62(43)),
  ],
  ['Azure client secret', (r) => ((s) => ({ text: join('AZURE_CLIENT_SECRET ', r.b62(3), '8Q', '~', s), secrets: [s] }))(r.url(34))],
  [
    'Azure Service Bus key',
    (r) => ((s) => ({ text: join('Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccess', 'Key=', s, '='), secrets: [s] }))(r.b64(43)),
  ],
  ['SendGrid key', (r) => ((s, t) => ({ text: join('SG', '.', s, '.', t), secrets: [s, t] }))(r.url(22), r.url(43))],
  ['Mailchimp key', (r) => ((s) => ({ text: join('mailchimp ', s, '-us', '14'), secrets: [s] }))(r.hex(32))],
  ['Twilio API key', (r) => ((s) => ({ text: join('twilio S', 'K', s), secrets: [s] }))(r.hex(32))],
  ['Shopify token', (r) => ((s) => ({ text: join('shp', 'at_', s), secrets: [s] }))(r.hex(32))],
  ['Linear key', (r) => ((s) => ({ text: join('lin', '_api_', s), secrets: [s] }))(r.b62(40))],
  ['DigitalOcean token', (r) => ((s) => ({ text: join('do', 'p_v1_', s), secrets: [s] }))(r.hex(64))],
  ['Databricks token', (r) => ((s) => ({ text: join('da', 'pi', s), secrets: [s] }))(r.hex(32))],
  ['PyPI token', (r) => ((s) => ({ text: join('pypi', '-AgEIcHlwaS5vcmc', s), secrets: [s] }))(r.url(70))],
  ['Postman key', (r) => ((s, t) => ({ text: join('PM', 'AK-', s, '-', t), secrets: [s, t] }))(r.hex(24), r.hex(34))],
  ['HashiCorp Vault token', (r) => ((s) => ({ text: join('VAULT_TOKEN is hv', 's.', s), secrets: [s] }))(r.url(90))],
  ['Docker Hub token', (r) => ((s) => ({ text: join('dckr', '_pat_', s), secrets: [s] }))(r.url(27))],
  ['age secret key', (r) => ((s) => ({ text: join('AGE-SECRET', '-KEY-1', s), secrets: [s] }))(r.bech32(58))],
  ['Doppler token', (r) => ((s) => ({ text: join('dp', '.st.', s), secrets: [s] }))(r.url(40))],
  ['Groq key', (r) => ((s) => ({ text: join('gs', 'k_', s), secrets: [s] }))(r.b62(52))],
  ['Grafana service account token', (r) => ((s) => ({ text: join('gl', 'sa_', s, '_', r.hex(8)), secrets: [s] }))(r.b62(32))],
  ['Atlassian API token', (r) => ((s) => ({ text: join('AT', 'ATT3', s), secrets: [s] }))(r.url(180))],
  [
    '1Password service account token',
    (r) =>
      ((s) => ({ text: join('OP_SERVICE_ACCOUNT_TOKEN=op', 's_', s), secrets: [s.slice(10, 40)] }))(
        b64(
          JSON.stringify({
            signInAddress: 'my.1password.com',
            userAuth: { method: 'SRPg-4096', alg: 'PBES2g-HS256', iterations: 650000, salt: r.b62(22) },
            email: `${r.b62(12)}@1passwordserviceaccounts.com`,
            srpX: r.hex(64),
            muk: { alg: 'A256GCM', k: r.url(43) },
          }),
        ),
      ),
  ],
  ['Discord bot token', (r) => ((s) => ({ text: join('DISCORD ', 'M', r.b62(23), '.', r.url(6), '.', s), secrets: [s] }))(r.url(38))],
  ['netrc password', (r) => ((s) => ({ text: join('machine api.example.com login bot pass', 'word ', s), secrets: [s] }))(r.pw())],
  ['docker registry auth', (r) => ((s) => ({ text: join('{"auths":{"ghcr.io":{"au', 'th":"', s, '"}}}'), secrets: [s] }))(b64(join('bot:', r.b62(30))))],
  ['--password on a command line', (r) => ((s) => ({ text: join('mysql -u root --pass', 'word ', s, ' shop'), secrets: [s] }))(r.pw())],
  // the same credentials, disguised: normalisation must undo it
  ['GitHub token with a zero-width space inside', (r) => ((s) => ({ text: join('token gh', '\u200b', 'p_', s), secrets: [s] }))(r.b62(36))],
  [
    'GitHub token in fullwidth letters',
    (r) =>
      ((s) => ({ text: join('token ', [...join('ghp_', s)].map((c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0)).join('')), secrets: [s] }))(r.b62(36)),
  ],
  ['GitHub token with a JSON-escaped letter', (r) => ((s) => ({ text: join('"token": "gh\\u0070', '_', s, '"'), secrets: [s] }))(r.b62(36))],
  ['provider key after an escaped line break', (r) => ((s) => ({ text: join('"text": "the key:\\nsk', '-', s, '"'), secrets: [s] }))(r.url(40))],
  [
    'npm token with a soft hyphen inside',
    (r) => ((s) => ({ text: join('npm', '_', s.slice(0, 10), '\u00ad', s.slice(10)), secrets: [s.slice(10)] }))(r.b62(36)),
  ],
  ['AWS key id with a combining mark inside', (r) => ((s) => ({ text: join('AKI', '\u0301', 'A', s), secrets: [s] }))(r.upper(16))],
  ['Stripe key with a C0 control inside', (r) => ((s) => ({ text: join('sk_li', '\u0001', 've_', s), secrets: [s] }))(r.b62(24))],
];

/** The credential shapes: refused at save, redacted in snapshots, never echoed. */
export const SECRET_CASES: readonly SecretCase[] = CASES.map(([name, build]) => ({ name, ...build(randoms(name)) }));

const PUBLIC_KEY = join('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI', randoms('pub').b64(43), ' dev@laptop');
const JWT_IO_SAMPLE = [
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9',
  'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ',
  'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
].join('.');

/** `${NAME}`, as a configuration file writes a variable (built so that no template literal is implied). */
const ref = (name: string) => `$${'{'}${name}}`;

/** Look-alikes: placeholders, documented examples, hashes, ids, prose. They must pass. */
export const BENIGN_CASES: readonly BenignCase[] = (
  [
    ['placeholder password', 'PASSWORD=changeme'],
    ['masked password', 'password: ********'],
    ['environment reference', `API_KEY=${ref('API_KEY')}`],
    ['template token', 'Authorization: Bearer <token>'],
    ['shell variable token', 'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com'],
    ['xxx token', 'token: xxx'],
    ['YAML key, prose on the next line', 'password:\n  see the vault entry Deploy/DB'],
    ['Kubernetes env from a secret', 'env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef: {name: db, key: password}'],
    ['command substitution', 'export DB_PASSWORD=$(vault kv get -field=password secret/db)'],
    ['code reading the environment', 'password = os.environ["DB_PASSWORD"]'],
    ['code reading a config', 'const apiKey = process.env.API_KEY;'],
    ['AWS documentation example key id', join('AKIA', 'IOSFODNN7', 'EXAMPLE')],
    ['AWS documentation example secret', join('aws_secret_access_key = ', ['wJalrXUtnFEMI', 'K7MDENG', 'bPxRfiCYEXAMPLEKEY'].join('/'))],
    ['jwt.io sample token', join('the jwt.io sample: ', JWT_IO_SAMPLE)],
    ['git commit SHA', 'fixed in 9fceb02d0ae598e95dc970b74767f19372d61af8'],
    ['sha256 digest', 'sha256: 2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae'],
    ['Docker image digest', 'node@sha256:a3b1c4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1'],
    ['UUID', 'request 123e4567-e89b-12d3-a456-426614174000 failed'],
    ['base64 of ordinary text', join('payload ', b64('The quick brown fox jumps over the lazy dog'))],
    ['single base64 JSON segment', join('header ', b64url('{"alg":"none"}'))],
    ['npm integrity hash', join('integrity: "sha512-', b64('not a credential, only the digest of a tarball here!!').slice(0, 64), '"')],
    ['task id like the reference', 'task-aaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
    ['URL with placeholder credentials', 'https://user:password@example.com/path'],
    ['URL with a variable password', `postgres://user:${ref('DB_PASSWORD')}@localhost:5432/app`],
    ['URL with a template password', 'mongodb://admin:<password>@localhost:27017'],
    ['URL with masked password', 'redis://:****@cache:6379'],
    ['database URL without credentials', 'DATABASE_URL=postgres://localhost/dev'],
    ['git remote', 'git@github.com:org/repo.git and ssh://git@github.com/org/repo'],
    ['email address', 'email: dev@example.com'],
    ['public key header', '-----BEGIN PUBLIC KEY-----'],
    ['certificate header', '-----BEGIN CERTIFICATE-----'],
    ['SSH public key', PUBLIC_KEY],
    ['prose about secrets', 'the secret to good tests is isolation; rotate the key every quarter'],
    ['rate limiting prose', 'token bucket rate limiting with 100 tokens per minute'],
    ['max tokens setting', 'max_tokens: 4096'],
    ['pagination token', 'next_page_token: CiAKGjBzMmQ3ZjE'],
    ['password policy setting', 'password_min_length: 12'],
    ['Kubernetes secret reference', 'secretName: db-credentials'],
    ['a key decision', 'The key decision: use Redis for sessions.'],
    ['npm config variable', 'npm_config_cache=/tmp/npm-cache'],
    ['short sk prefix', 'sk-short'],
    ['short ghp prefix', 'ghp_ too short'],
    ['asterisks', '****'],
    ['x placeholders', 'xxx-xxx-xxx'],
    ['angle placeholder', '<token>'],
    ['brace placeholder', ref('API_KEY')],
    ['empty assignment', 'PASSWORD='],
    ['your-password-here', 'password: "your-password-here"'],
    ['replace me', 'client_secret: REPLACE_ME'],
    ['Bearer in prose', 'Bearer token authentication is required for the API'],
    ['vault pointer', 'The key is in 1Password: Deploy/API (never in the repo)'],
    ['working directory', 'PWD=/home/user/project and OLDPWD=/tmp'],
    ['YAML key with nested value', 'password:\n  from_secret: db_password'],
    ['empty JSON value', 'api_key: ""'],
    ['null token', 'token: null'],
    ['docker port flag', 'docker run -p 8080:80 nginx'],
    ['type annotation', 'function login(user: string, password: string): Promise<Token>'],
  ] as Array<[string, string]>
).map(([name, text]) => ({ name, text }));
