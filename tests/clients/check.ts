// Compiled by tests/test_clients.py with `tsc --strict --noEmit` beside api.d.ts, the types
// openapi-typescript generated from the live /openapi.json. It fails to compile when a
// response's body is not typed as the JSON record shape (e.g. `Weighing[] | string` when a
// 200 also lists text/csv), or when an operation, parameter or header is missing.
import createClient from "openapi-fetch";
import type { components, paths } from "./api";

type Weighing = components["schemas"]["Weighing"];
type Pagination = components["schemas"]["PaginationMetadata"];

export async function firstVehicle(baseUrl: string): Promise<string | null | undefined> {
  const client = createClient<paths>({ baseUrl });
  const { data, error } = await client.GET("/transactions", {
    params: { query: { custcode: "SUP-007", fields: ["id", "vehno"] } },
  });
  if (error !== undefined || data === undefined || data.length === 0) {
    return undefined;
  }
  const first: Weighing = data[0]; // the JSON record shape, no cast
  return first.vehno;
}

export async function pageTotal(baseUrl: string): Promise<number | undefined> {
  const client = createClient<paths>({ baseUrl });
  const { data, response } = await client.GET("/transactions/page/{pagenumber}", {
    params: { path: { pagenumber: 1 }, query: { page_size: 2 } },
  });
  const ids: (number | null | undefined)[] = (data ?? []).map((record) => record.id);
  const header = response.headers.get("X-Pagination");
  const meta: Pagination | undefined = header === null ? undefined : JSON.parse(header);
  return ids.length > 0 ? meta?.total : undefined;
}

export async function oneRecord(baseUrl: string): Promise<number | null | undefined> {
  const client = createClient<paths>({ baseUrl });
  const { data } = await client.GET("/transactions/{ID}", {
    params: { path: { ID: 1 } },
  });
  return data?.id;
}
