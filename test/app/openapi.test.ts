// GET /openapi.json: an OpenAPI 3.1 document of every public endpoint, from the validating schemas.
import { describe, expect, it } from "vitest";
import { call } from "../helpers/http";

describe("GET /openapi.json", () => {
  it("is OpenAPI 3.1 and lists every public path with its methods", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe("3.1.0");
    expect(res.json.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    const methods = Object.fromEntries(
      Object.entries(res.json.paths as Record<string, Record<string, unknown>>).map(([path, ops]) => [path, Object.keys(ops).sort()]),
    );
    expect(methods).toEqual({
      "/api/v1": ["get"],
      "/api/v1/api-keys": ["get", "post"],
      "/api/v1/api-keys/{id}": ["delete"],
      "/api/v1/settings": ["get", "patch"],
      "/api/v1/orders": ["get", "post"],
      "/api/v1/orders/bulk": ["post"],
      "/api/v1/orders/export": ["get"],
      "/api/v1/orders/{reference}": ["get"],
      "/api/v1/orders/{reference}/block": ["post"],
      "/api/v1/orders/{reference}/unblock": ["post"],
      "/api/v1/orders/{reference}/match": ["post"],
      "/api/v1/orders/{reference}/retry": ["post"],
      "/api/v1/orders/{reference}/complete": ["post"],
      "/api/v1/orders/{reference}/dispatches": ["get"],
      "/api/v1/orders/{reference}/cancel": ["post"],
      "/api/v1/orders/{reference}/cancellations": ["get"],
      "/api/v1/orders/{reference}/returns": ["get", "post"],
      "/api/v1/returns": ["get"],
      "/api/v1/returns/{id}": ["get"],
      "/api/v1/returns/{id}/tracking": ["post"],
      "/api/v1/returns/{id}/cancel": ["post"],
      "/api/v1/suppliers/{id}/returns-settings": ["get", "put"],
      "/api/v1/supplier/returns": ["get"],
      "/api/v1/supplier/returns/{id}": ["get"],
      "/api/v1/supplier/returns/{id}/answer": ["post"],
      "/api/v1/orders/{reference}/cancellations/answers": ["post"],
      "/api/v1/orders/{reference}/lines/{line_id}/assign": ["post"],
      "/api/v1/orders/{reference}/lines/{line_id}/cancel-rest": ["post"],
      "/api/v1/orders/{reference}/lines/{line_id}/reroute": ["post"],
      "/api/v1/orders/{reference}/shop-sync": ["get"],
      "/api/v1/orders/{reference}/shop-sync/{id}/replay": ["post"],
      "/api/v1/products": ["get"],
      "/api/v1/product-feeds": ["get", "post"],
      "/api/v1/product-feeds/{id}": ["delete", "get", "patch"],
      "/api/v1/product-feeds/{id}/import": ["post"],
      "/api/v1/product-feeds/{id}/imports": ["get"],
      "/api/v1/product-feeds/{id}/imports/{import}": ["get"],
      "/api/v1/product-feeds/{id}/products": ["put"],
      "/api/v1/suppliers": ["get", "post"],
      "/api/v1/suppliers/{id}": ["delete", "get", "patch"],
      "/api/v1/suppliers/{id}/rotate-secret": ["post"],
      "/api/v1/suppliers/{id}/file-transfer/test": ["post"],
      "/api/v1/suppliers/{id}/inbound-files": ["get"],
      "/api/v1/suppliers/{id}/x12-interchanges": ["get"],
      "/api/v1/suppliers/{id}/keys": ["get", "post"],
      "/api/v1/suppliers/{id}/keys/{keyId}": ["delete"],
      "/api/v1/routing-rules": ["get", "post"],
      "/api/v1/routing-rules/{id}": ["delete", "get", "patch"],
      "/api/v1/routing-rules/reorder": ["post"],
      "/api/v1/routing-rules/explain": ["post"],
      "/api/v1/shop-connections": ["get", "post"],
      "/api/v1/shop-connections/{id}": ["delete", "get", "patch"],
      "/api/v1/shop-connections/{id}/test": ["post"],
      "/api/v1/shop-connections/{id}/stock-syncs": ["get", "post"],
      "/api/v1/shop-connections/{id}/stock-syncs/preview": ["post"],
      "/api/v1/shop-connections/{id}/stock-syncs/{sync_id}": ["get"],
      "/api/v1/shop-connections/{id}/stock-syncs/{sync_id}/confirm": ["post"],
      "/api/v1/shop-connections/{id}/stock-syncs/{sync_id}/discard": ["post"],
      "/api/v1/webhooks": ["get", "post"],
      "/api/v1/webhooks/{id}": ["delete", "get", "patch"],
      "/api/v1/webhooks/{id}/deliveries": ["get"],
      "/api/v1/webhooks/{id}/deliveries/{deliveryId}": ["get"],
      "/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver": ["post"],
      "/api/v1/supplier/orders": ["get"],
      "/api/v1/supplier/orders/{dispatchId}/ack": ["post"],
      "/api/v1/supplier/cancellations": ["get"],
      "/api/v1/supplier/cancellations/{cancellationId}/ack": ["post"],
      "/api/v1/supplier/answers": ["post"],
      "/api/v1/supplier-callbacks/{supplierId}": ["post"],
      "/api/v1/supplier-callbacks/{supplierId}/returns/{id}/answer": ["post"],
      "/shopify/webhooks/{connectionId}": ["post"],
      "/admin/v1/accounts": ["get", "post"],
      "/admin/v1/accounts/{id}": ["delete"],
      "/admin/v1/accounts/{id}/api-keys": ["get", "post"],
      "/admin/v1/accounts/{id}/move": ["post"],
      "/admin/v1/accounts/{id}/archive": ["post"],
      "/admin/v1/secrets/reseal": ["post"],
      "/admin/v1/api-keys/{id}": ["delete"],
      "/admin/v1/supplier-keys/{id}": ["delete"],
      "/admin/v1/parked-orders": ["get"],
      "/admin/v1/parked-orders/{reference}/replay": ["post"],
      "/admin/v1/dead-letters": ["get"],
      "/admin/v1/dead-letters/{id}/replay": ["post"],
    });
  });

  it("documents responses and errors, and the credentials each endpoint needs", async () => {
    const doc = (await call("GET", "/openapi.json")).json;
    const create = doc.paths["/api/v1/orders"].post;
    expect(Object.keys(create.responses).sort()).toEqual(["200", "400", "401", "413", "415", "422", "429", "500"]);
    expect(create.security).toEqual([{ ApiKey: [], AccountId: [] }]);
    for (const type of ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"]) {
      expect(create.requestBody.content[type].schema, type).toEqual({ $ref: "#/components/schemas/CreateOrderRequest" });
    }
    expect(Object.keys(doc.paths["/api/v1/orders"].get.responses).sort()).toEqual(["200", "401", "422", "429", "500"]);
    expect(Object.keys(doc.paths["/api/v1/orders/{reference}"].get.responses).sort()).toEqual(["200", "401", "404", "429", "500"]);
    expect(doc.paths["/admin/v1/accounts"].post.security).toEqual([{ AdminToken: [] }]);
    const description = expect.any(String);
    expect(doc.components.securitySchemes).toEqual({
      ApiKey: { type: "apiKey", in: "header", name: "api-key", description },
      AccountId: { type: "apiKey", in: "header", name: "account-id", description },
      AdminToken: { type: "http", scheme: "bearer", description },
      SupplierKey: { type: "http", scheme: "bearer", description },
    });
    const listParams = doc.paths["/api/v1/orders"].get.parameters.map((p: any) => p.name).sort();
    expect(listParams).toEqual(
      ["archived", "blocked", "completed_since", "date_from", "date_to", "external_id", "include_test", "page", "per_page", "q", "shipping", "sort", "source", "statuses", "supplier_ids", "total_max", "total_min"],
    );
    const request = doc.components.schemas.CreateOrderRequest;
    expect(request.required).toEqual(expect.arrayContaining(["external_id", "source", "total", "shipping_address", "products"]));
    for (const name of ["Order", "OrderWithLogs", "OrderPage", "ProductPage", "Error", "ValidationError"]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
  });

  it("documents every event a shop can subscribe to as a webhook, with its data", async () => {
    const doc = (await call("GET", "/openapi.json")).json;
    expect(Object.keys(doc.webhooks)).toEqual([
      "order.created",
      "order.blocked",
      "order_line.status_changed",
      "order_line.shipped",
      "order.completed",
      "order.parked",
      "order.cancelled",
      "order_line.cancellation_confirmed",
      "order_line.cancellation_refused",
      "order_line.rerouted",
      "order_line.overdue",
      "order_line.assigned",
      "return.requested",
      "return.authorised",
      "return.declined",
      "return.in_transit",
      "return.received",
      "return.credited",
      "return.closed",
      "return.cancelled",
      // Not a shop event: what a webhook supplier receives when lines it has are cancelled.
      "dispatch.cancellation_requested",
    ]);
    const rerouted = doc.webhooks["order_line.rerouted"].post.requestBody.content["application/json"].schema;
    expect(Object.keys(rerouted.properties)).toEqual(["id", "type", "created_at", "data"]);
    expect(Object.keys(rerouted.properties.data.properties)).toEqual(["order", "line", "from_supplier", "to_supplier", "cause", "reason", "attempt", "max_attempts"]);
    const subscribable = doc.components.schemas.Webhook.properties.events.items.enum;
    expect(subscribable).toEqual(Object.keys(doc.webhooks).filter((type) => type !== "dispatch.cancellation_requested"));

    // The supplier's cancellation request: the webhook's body, and each item of GET /supplier/cancellations.
    const request = doc.webhooks["dispatch.cancellation_requested"].post;
    expect(request.parameters.map((p: { name: string; in: string }) => [p.in, p.name])).toEqual([
      ["header", "x-webhook-signature"],
      ["header", "idempotency-key"],
    ]);
    const body = request.requestBody.content["application/json"].schema;
    expect(Object.keys(body.properties)).toEqual(["id", "type", "cancellation_id", "purpose", "created_at", "test", "supplier", "order", "reason", "lines"]);
    expect(Object.keys(body.properties.lines.items.properties)).toEqual(["id", "external_id", "name", "ean13", "reference", "quantity", "line_quantity", "status"]);
    const listed = doc.paths["/api/v1/supplier/cancellations"].get.responses["200"].content["application/json"].schema.properties.data.items;
    expect(listed).toEqual({ $ref: "#/components/schemas/SupplierCancellation" });
    expect(Object.keys(doc.components.schemas.SupplierCancellation.properties)).toEqual([...Object.keys(body.properties), "status", "acknowledged_at"]);
  });
});
