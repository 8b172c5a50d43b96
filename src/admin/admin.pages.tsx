// The operator's pages: the accounts, from the same service as GET /admin/v1/accounts.
import { Hono } from "hono";
import { listAccounts } from "../accounts/accounts.service";
import type { AppEnv } from "../env";
import { pageParam } from "../lib/pagination";
import { EmptyState } from "../ui/notice";
import { Pagination } from "../ui/pagination";
import { DataTable } from "../ui/table";
import { LocalTime } from "../ui/time";

export const operatorPages = new Hono<AppEnv>();

const PER_PAGE = 50;

operatorPages.get("/", (c) => c.redirect("/operator/accounts", 303));

operatorPages.get("/accounts", async (c) => {
  const page = { page: pageParam(c.req.query("page")), perPage: PER_PAGE };
  const { total, rows } = await listAccounts(c.get("db"), page);
  type Row = (typeof rows)[number];
  return c.render(
    <>
      <h1>Accounts</h1>
      {total === 0 ? (
        <EmptyState title="No accounts yet">
          <p>
            Create the first shop account and its API key with the admin CLI: <code>npm run admin -- accounts:create "Shop name"</code>, then{" "}
            <code>npm run admin -- keys:create &lt;account id&gt;</code>.
          </p>
        </EmptyState>
      ) : (
        <>
          <DataTable<Row>
            caption="Accounts, oldest first"
            rows={rows}
            columns={[
              { header: "ID", numeric: true, cell: (a) => a.id },
              { header: "Name", cell: (a) => a.name },
              { header: "Created", cell: (a) => <LocalTime iso={a.createdAt} /> },
              { header: "Active API keys", numeric: true, cell: (a) => a.activeApiKeys },
            ]}
          />
          <Pagination path="/operator/accounts" query={new URL(c.req.url).searchParams} noun="accounts" window={{ page: page.page, perPage: PER_PAGE, total, shown: rows.length }} />
        </>
      )}
    </>,
    { title: "Accounts" },
  );
});
