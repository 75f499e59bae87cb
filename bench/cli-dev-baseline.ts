/**
 * The baseline of the integrator CLI series of `npm run bench -- cli`: the least any `gatehouse-dev` command that
 * reads the API does — start node, one `fetch` of `GET /v1/events?limit=25` with the API key (GATEHOUSE_BASE_URL,
 * GATEHOUSE_API_KEY), print one line per event, exit.
 */
async function main(): Promise<void> {
  const res = await fetch(`${process.env.GATEHOUSE_BASE_URL}/v1/events?limit=25`, {
    headers: { authorization: `Bearer ${process.env.GATEHOUSE_API_KEY}` },
  });
  if (!res.ok) throw new Error(`GET /v1/events answered ${res.status}`);
  const page = (await res.json()) as { data: { id: string; type: string; created_at: string }[] };
  for (const e of page.data) process.stdout.write(`${e.created_at}  ${e.type}  ${e.id}\n`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
