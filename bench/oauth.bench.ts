/**
 * `npm run bench -- oauth`: `GET /v1/sites` with an OAuth access token against the same call with an API key, in
 * one run on one app process (the token's resolution — hash lookup of the token with its connection, then the
 * person's role and organisation — against the key's one lookup), unloaded and saturated; then token refreshes a
 * second (each refresh rotates: consumes the old refresh token and stores a new one and an access token), over
 * several grants at once. Writes bench/results/oauth.{json,md}. Target: token p50 ≤ 1.2 × key p50.
 */
import autocannon from 'autocannon';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { platformServices } from '../src/visitor/visitor.command';
import { AuditService } from '../src/visitor/audit/audit.service';
import { Clock } from '../src/common/clock';
import { ClientsRepository } from '../src/oauth/clients/clients.repository';
import { ClientsService } from '../src/oauth/clients/clients.service';
import {
  benchContext,
  benchDatabase,
  CONNECTIONS,
  DURATION,
  load,
  peakRssMb,
  runIfMain,
  benchEnterpriseOrg,
  startBenchServer,
  stopBenchServer,
} from './support';
import { authorize, PASSWORD } from './oauth-flow';

/** A port free right now on 127.0.0.1 (the issuer, BASE_URL, must name it before the app starts). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}
const CHAINS = 4;
const REDIRECT = 'http://127.0.0.1:9/callback';

/** Sequential calls on one keep-alive connection, alternating the two credentials; p50 and mean in ms (µs precision). */
async function sequentialLatency(url: string, a: string, b: string, n: number) {
  const times: Record<string, number[]> = { [a]: [], [b]: [] };
  for (let i = 0; i < n; i++)
    for (const credential of i % 2 ? [a, b] : [b, a]) {
      const started = performance.now();
      const res = await fetch(url, { headers: { authorization: `Bearer ${credential}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
      times[credential].push(performance.now() - started);
    }
  const stats = (xs: number[]) => {
    const sorted = [...xs].sort((x, y) => x - y);
    return {
      p50: Number(sorted[Math.floor(sorted.length / 2)].toFixed(3)),
      mean: Number((xs.reduce((s, x) => s + x, 0) / xs.length).toFixed(3)),
    };
  };
  return { [a]: stats(times[a]), [b]: stats(times[b]) };
}

interface Tokens {
  access_token: string;
  refresh_token: string;
}

async function tokenRequest(base: string, form: Record<string, string>): Promise<Tokens> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  if (res.status !== 200) throw new Error(`token endpoint answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Tokens;
}

export async function main(): Promise<void> {
  const db = await benchDatabase('oauth');
  const graph = await benchContext(db);
  const ds = graph.get(DataSource);
  const s = platformServices(graph);
  const operator = { type: 'operator' as const, id: 'bench' };
  const organisation = await benchEnterpriseOrg(s);
  const key = (
    await s.keys.create(
      organisation.id,
      { name: 'bench', kind: 'secret', mode: 'live', scopes: ['sites:read'] },
      operator,
    )
  ).key;
  const owner = await s.accounts.create(
    organisation.id,
    { email: 'owner@bench.test', name: 'Bench Owner', role: 'owner', password: PASSWORD },
    operator,
  );
  const client = await new ClientsService(
    new ClientsRepository(ds),
    s.orgs,
    graph.get(AuditService),
    graph.get(Clock),
  ).register(owner, {
    name: 'Bench app',
    redirect_uris: [REDIRECT],
    type: 'public',
  });
  await graph.close();

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const app = await startBenchServer(db, port, { BASE_URL: base, BENCH_ORG: organisation.id });
  try {
    const connect = async (): Promise<Tokens> => {
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const done = await authorize(base, {
        person: owner,
        clientId: client.client_id,
        redirectUri: REDIRECT,
        scope: 'sites:read',
        codeChallenge: challenge,
        mode: 'live',
      });
      const code = done.callback?.searchParams.get('code');
      if (!code) throw new Error(`authorization did not return a code: ${done.page.slice(0, 200)}`);
      return tokenRequest(base, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: client.client_id,
      });
    };
    const grants = await Promise.all(Array.from({ length: CHAINS }, connect));
    const token = grants[0].access_token;
    const keyed = { url: `${base}/v1/sites`, headers: { authorization: `Bearer ${key}` } };
    const tokened = { url: `${base}/v1/sites`, headers: { authorization: `Bearer ${token}` } };
    await autocannon({ ...keyed, connections: 4, duration: 2 });
    await autocannon({ ...tokened, connections: 4, duration: 2 });
    // Unloaded latency with µs precision (autocannon rounds to whole ms): alternating calls, one connection.
    const seq = await sequentialLatency(`${base}/v1/sites`, key, token, 3000);
    const keySeq = seq[key];
    const tokenSeq = seq[token];
    const key1 = await load({ ...keyed, connections: 1 });
    const token1 = await load({ ...tokened, connections: 1 });
    const keySat = await load(keyed);
    const tokenSat = await load(tokened);

    // Refreshes: CHAINS grants refreshed back to back, each with the refresh token the previous refresh returned.
    let refreshes = 0;
    const until = Date.now() + DURATION * 1000;
    await Promise.all(
      grants
        .slice(1)
        .concat([await connect()])
        .map(async (g) => {
          let rt = g.refresh_token;
          while (Date.now() < until) {
            rt = (
              await tokenRequest(base, {
                grant_type: 'refresh_token',
                refresh_token: rt,
                client_id: client.client_id,
              })
            ).refresh_token;
            refreshes += 1;
          }
        }),
    );
    const refreshesPerSecond = Number((refreshes / DURATION).toFixed(1));

    const result = {
      date: new Date().toISOString(),
      machine: `${process.platform} ${process.arch}, node ${process.version}`,
      duration_s: DURATION,
      connections: CONNECTIONS,
      api_key_1_connection: key1,
      oauth_token_1_connection: token1,
      api_key: keySat,
      oauth_token: tokenSat,
      api_key_sequential_ms: keySeq,
      oauth_token_sequential_ms: tokenSeq,
      token_vs_key_p50_ratio_sequential: Number((tokenSeq.p50 / keySeq.p50).toFixed(2)),
      token_vs_key_mean_ratio_1_connection: Number((token1.mean / key1.mean).toFixed(2)),
      token_vs_key_p50_ratio_saturated: Number((tokenSat.p50 / keySat.p50).toFixed(2)),
      token_vs_key_throughput_ratio: Number((tokenSat.rps / keySat.rps).toFixed(3)),
      refresh_chains: CHAINS,
      refreshes_per_second: refreshesPerSecond,
      app_peak_rss_mb: peakRssMb(app.pid as number),
      targets: { token_vs_key_p50_ratio: '≤ 1.2' },
    };
    mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
    writeFileSync(join(process.cwd(), 'bench/results/oauth.json'), `${JSON.stringify(result, null, 2)}\n`);
    const md = [
      `# bench oauth (${result.date}, ${result.machine}, ${CONNECTIONS} connections, ${DURATION} s each)`,
      '',
      '| run | requests/s | mean ms | p50 ms | p99 ms |',
      '|---|---|---|---|---|',
      `| GET /v1/sites, API key, 1 connection | ${key1.rps} | ${key1.mean} | ${key1.p50} | ${key1.p99} |`,
      `| GET /v1/sites, OAuth token, 1 connection | ${token1.rps} | ${token1.mean} | ${token1.p50} | ${token1.p99} |`,
      `| GET /v1/sites, API key, ${CONNECTIONS} connections | ${keySat.rps} | ${keySat.mean} | ${keySat.p50} | ${keySat.p99} |`,
      `| GET /v1/sites, OAuth token, ${CONNECTIONS} connections | ${tokenSat.rps} | ${tokenSat.mean} | ${tokenSat.p50} | ${tokenSat.p99} |`,
      '',
      `Sequential, alternating, one connection: key p50 ${keySeq.p50} ms, token p50 ${tokenSeq.p50} ms.`,
      '',
      `Token vs key p50: ${result.token_vs_key_p50_ratio_sequential}× unloaded (autocannon mean ${result.token_vs_key_mean_ratio_1_connection}×), ${result.token_vs_key_p50_ratio_saturated}× saturated (target ≤ 1.2); throughput ratio ${result.token_vs_key_throughput_ratio}. Refreshes: ${refreshesPerSecond}/s over ${CHAINS} grants. App peak RSS: ${result.app_peak_rss_mb} MB.`,
      '',
    ].join('\n');
    writeFileSync(join(process.cwd(), 'bench/results/oauth.md'), md);
    console.log(md);
  } finally {
    await stopBenchServer(app);
    await db.drop();
  }
}

runIfMain(module, main);
