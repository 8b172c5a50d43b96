// The supplier portal's returns over HTTP inside workerd (src/returns/portal.pages.tsx), as a
// browser posts its forms: the same validation as the API beside the fields (no receipt above what
// was returned, no credit without a receipt, a field required by the answer), a 409 in words when the
// return has moved on, nothing written by a refusal; another supplier's return not found; and an
// answer accepted is logged as the portal's. The browser's view: portal.browser.test.ts.
import { describe, expect, it } from "vitest";
import { csrfOf, getPage, postForm, signInTo, type Jar } from "../helpers/console-http";
import { call } from "../helpers/http";
import { answerReturn, requestReturn, shippedOrder, type Shipped } from "./support";

/** The message shown beside a field (its id), as the page renders it. */
const besideField = (html: string, id: string) => new RegExp(`<small id="${id}-error" class="field-error">([^<]*)</small>`).exec(html)?.[1];
const unescape = (s: string | undefined) => s?.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, "&");

async function portal(key: string): Promise<Jar> {
  const { res, jar } = await signInTo("/supplier", { supplier_key: key });
  expect(res.status).toBe(303);
  return jar;
}

async function answer(jar: Jar, id: number, fields: Record<string, string>) {
  const page = await getPage("/supplier/returns", jar);
  const res = await postForm(`/supplier/returns/${id}/answer`, jar, { _csrf: csrfOf(page.html), ...fields });
  return { status: res.status, location: res.headers.get("location"), html: await res.text() };
}

const returnOf = async (s: Shipped, id: number) => (await call("GET", `/api/v1/returns/${id}`, { creds: s.creds })).json;

describe("the supplier portal's returns", () => {
  it("lists the open returns with the answers their state takes; refuses bad answers beside their fields and a moved-on return with the 409 in words, writing nothing", async () => {
    const s = await shippedOrder();
    const created = await requestReturn(s.creds, s.reference, { lines: [{ line_id: s.mugs, quantity: 1, reason: "Chipped" }, { line_id: s.plate, quantity: 1, reason: "Wrong colour" }] });
    expect(created.status, created.text).toBe(201);
    const [cupsReturn, platesReturn] = created.json.data;
    const jar = await portal(s.plates.key);

    const list = await getPage("/supplier/returns", jar);
    expect(list.status).toBe(200);
    // Only its own return, with a requested return's two answers.
    expect(list.html).toContain(`return #${platesReturn.id}`);
    expect(list.html).not.toContain(`return #${cupsReturn.id}`);
    expect([...list.html.matchAll(/<summary>([^<]*)</g)].map((m) => m[1])).toEqual(["Authorise…", "Decline…"]);

    // Authorise without an RMA (and no return address on file): both beside their fields; nothing written.
    const bare = await answer(jar, platesReturn.id, { action: "authorise", rma: "", return_address: "" });
    expect(bare.status).toBe(422);
    expect(unescape(besideField(bare.html, `return-${platesReturn.id}-authorise-rma`))).toBe("The RMA number field is required when action is authorise.");
    const before = await returnOf(s, platesReturn.id);
    expect(before.status).toBe("requested");

    // Another supplier's return: not found, like one that does not exist.
    expect((await answer(jar, cupsReturn.id, { action: "decline", reason: "Not ours" })).status).toBe(404);

    // Credit before a receipt: the 409 in words over the list; nothing written.
    const early = await answer(jar, platesReturn.id, { action: "credit", amount: "5", currency: "EUR" });
    expect(early.status).toBe(409);
    expect(unescape(early.html)).toContain(`Not possible now: Return ${platesReturn.id} is requested; it cannot be given the answer 'credit' (only when received).`);
    expect(await returnOf(s, platesReturn.id)).toEqual(before);

    const ok = await answer(jar, platesReturn.id, { action: "authorise", rma: "P-1", return_address: "Kade 2, Utrecht" });
    expect([ok.status, ok.location]).toEqual([303, "/supplier/returns"]);
    const authorised = await returnOf(s, platesReturn.id);
    expect(authorised).toMatchObject({ status: "authorised", rma: "P-1", return_address: "Kade 2, Utrecht" });
    expect(authorised.logs.at(-1).by).toBe(`supplier ${s.plates.name} (portal)`);

    // A receipt above what was returned, and one without its condition: beside each line's field.
    const line = s.plate;
    const tooMany = await answer(jar, platesReturn.id, { action: "receive", [`quantity_${line}`]: "2", [`condition_${line}`]: "" });
    expect(tooMany.status).toBe(422);
    expect(unescape(besideField(tooMany.html, `return-${platesReturn.id}-receive-condition_${line}`))).toBe("The selected Condition of Red plate is invalid. Allowed values: new, opened, damaged.");
    const past = await answer(jar, platesReturn.id, { action: "receive", [`quantity_${line}`]: "2", [`condition_${line}`]: "new" });
    expect(past.status).toBe(422);
    expect(unescape(besideField(past.html, `return-${platesReturn.id}-receive-quantity_${line}`))).toBe(
      `The Quantity received of Red plate field must not be greater than 1, what return ${platesReturn.id} asks back of line ${line}.`,
    );
    // What was typed is kept.
    expect(past.html).toMatch(new RegExp(`id="return-${platesReturn.id}-receive-quantity_${line}" name="quantity_${line}" type="number" value="2"`));
    expect((await returnOf(s, platesReturn.id)).status).toBe("authorised");

    // The supplier API answered first: the portal's form, sent from the page as it was, is a 409.
    expect((await answerReturn(s.plates.key, platesReturn.id, { action: "receive", lines: [{ line_id: line, quantity: 1, condition: "damaged" }] })).status).toBe(200);
    const stale = await answer(jar, platesReturn.id, { action: "receive", [`quantity_${line}`]: "1", [`condition_${line}`]: "new" });
    expect(stale.status).toBe(409);
    expect(unescape(stale.html)).toContain(`Return ${platesReturn.id} is received; it cannot be given the answer 'receive' (only when authorised or in_transit).`);
    expect((await returnOf(s, platesReturn.id)).lines[0]).toMatchObject({ received_quantity: 1, condition: "damaged" });

    // Credit with a bad amount beside its field; then closed with no credit: off the list.
    const bad = await answer(jar, platesReturn.id, { action: "credit", amount: "-3", currency: "EUR" });
    expect(bad.status).toBe(422);
    expect(besideField(bad.html, `return-${platesReturn.id}-credit-amount`)).toMatch(/^The Amount field must be at least 0.01/);
    const closed = await answer(jar, platesReturn.id, { action: "close", reason: "Broken by the customer" });
    expect(closed.status).toBe(303);
    expect(await returnOf(s, platesReturn.id)).toMatchObject({ status: "closed", close_reason: "Broken by the customer", credit: null });
    expect((await getPage("/supplier/returns", jar)).html).toContain("No return waits for you");
  });
});
