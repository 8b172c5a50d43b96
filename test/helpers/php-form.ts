// Form bodies as PHP clients write them: http_build_query()'s urlencoding (what Magento's
// ZendClient posts) and the same fields as multipart/form-data.

type Php = string | number | boolean | null | undefined | Php[] | { [key: string]: Php };

/** [key, value] in http_build_query's order: nested keys in brackets, null skipped, booleans as 1/0. */
export function phpFields(value: Php, prefix = ""): [string, string][] {
  if (value === null || value === undefined) return [];
  if (typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => phpFields(v, prefix ? `${prefix}[${k}]` : k));
  }
  return [[prefix, typeof value === "boolean" ? (value ? "1" : "0") : String(value)]];
}

/** PHP's urlencode(): everything but A-Z a-z 0-9 - _ . is %XX, and a space is +. */
const urlencode = (s: string) =>
  encodeURIComponent(s)
    .replace(/[!'()*~]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+");

export function httpBuildQuery(value: Php): string {
  return phpFields(value)
    .map(([k, v]) => `${urlencode(k)}=${urlencode(v)}`)
    .join("&");
}

export function multipartOf(value: Php): FormData {
  const form = new FormData();
  for (const [k, v] of phpFields(value)) form.append(k, v);
  return form;
}
