// Cold start (b), raw: the same first request with undici.request and body.json().
import { request } from 'undici';

const { statusCode, body } = await request(`${process.env.BENCH_URL}/api/v1/messages/42`, {
  headers: { accept: 'application/json', 'x-api-key': 'tm_bench_key' },
});
const json = /** @type {{ data: { id: number } }} */ (await body.json());
if (statusCode !== 200 || json.data.id !== 42) throw new Error('unexpected log');
