// Where a connection may point (docs/api.md, "Outbound addresses"): every address the service
// reaches on its own (a shop, a feed server, a supplier's webhook or file server, an event
// subscription) is checked here, when it is taken and again when it is used. Public addresses and
// loopback (local development: npm start, the stand-ins, the tests; a deployed Worker cannot reach
// it) are reached; private networks only where the operator allows them (ALLOW_PRIVATE_NETWORKS);
// link-local, cloud metadata, unspecified and other reserved addresses never.
import { AsyncLocalStorage } from "node:async_hooks";

export type AddressKind = "public" | "loopback" | "private" | "link_local" | "metadata" | "unspecified" | "reserved";

/** A host as we judge it: an IP address (in its canonical form), a host name, or not a host at all. */
export type HostClass =
  | { type: "ip"; address: string; kind: AddressKind }
  | { type: "name"; name: string; kind: "public" | "loopback" | "private" | "metadata" }
  | { type: "invalid" };

export type OutboundPolicy = { allowPrivate: boolean };

const STRICT: OutboundPolicy = { allowPrivate: false };
const policy = new AsyncLocalStorage<OutboundPolicy>();

/** The policy of a Worker's env: private networks only with ALLOW_PRIVATE_NETWORKS = "true". */
export function outboundPolicyOf(env: { ALLOW_PRIVATE_NETWORKS?: string }): OutboundPolicy {
  return { allowPrivate: env.ALLOW_PRIVATE_NETWORKS === "true" };
}

/**
 * Runs `work` (a request, a queue batch, a cron run) under the env's policy. The zod schemas that
 * check addresses are static, so they read the policy from here; outside any run it is the strict one.
 */
export function withOutboundPolicy<T>(env: { ALLOW_PRIVATE_NETWORKS?: string }, work: () => T): T {
  return policy.run(outboundPolicyOf(env), work);
}

export function currentOutboundPolicy(): OutboundPolicy {
  return policy.getStore() ?? STRICT;
}

// ---- IPv4: every form WHATWG's URL parser and inet_aton(3) take ------------------------------

/** One part of a numeric IPv4 host: decimal, octal (leading 0) or hex (0x); null when it is not a number. */
function ipv4Part(part: string): number | null {
  let digits = part;
  let radix = 10;
  if (/^0x/i.test(part)) {
    digits = part.slice(2);
    radix = 16;
    if (digits === "") return 0; // "0x" is 0 to WHATWG
  } else if (part.length > 1 && part.startsWith("0")) {
    digits = part.slice(1);
    radix = 8;
  }
  const valid = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!valid.test(digits)) return null;
  // Past 2^32 it is no address (the length bound keeps the Number exact).
  const trimmed = digits.replace(/^0+(?=.)/, "");
  if (trimmed.length > 11) return Number.POSITIVE_INFINITY;
  return parseInt(trimmed, radix);
}

/** Whether WHATWG would read the host as IPv4 (its last label a number): then it must be a valid one. */
function endsInNumber(host: string): boolean {
  const labels = host.split(".");
  if (labels[labels.length - 1] === "" && labels.length > 1) labels.pop();
  const last = labels[labels.length - 1];
  return /^[0-9]+$/.test(last) || /^0x[0-9a-f]*$/i.test(last);
}

/**
 * The 32-bit value of a numeric IPv4 host in any form: dotted decimal, one to four parts
 * (`127.1`, `10.0.1`), each decimal, octal or hex (`0251.0376.0251.0376`, `0xa9fea9fe`,
 * `2852039166`), a trailing dot; null for anything else (or out of range).
 */
export function parseIPv4(host: string): number | null {
  const parts = host.split(".");
  if (parts[parts.length - 1] === "" && parts.length > 1) parts.pop();
  if (parts.length === 0 || parts.length > 4 || parts.some((p) => p === "")) return null;
  const numbers = parts.map(ipv4Part);
  if (numbers.some((n) => n === null)) return null;
  const values = numbers as number[];
  const last = values[values.length - 1];
  if (values.slice(0, -1).some((n) => n > 255)) return null;
  if (last >= 256 ** (5 - values.length)) return null;
  let address = last;
  values.slice(0, -1).forEach((n, i) => (address += n * 256 ** (3 - i)));
  return address;
}

export function formatIPv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join(".");
}

// ---- IPv6 ----------------------------------------------------------------------------------

/** The eight 16-bit groups of an IPv6 address (with or without brackets, an IPv4 tail allowed); null if it is none. */
export function parseIPv6(input: string): number[] | null {
  const host = input.startsWith("[") && input.endsWith("]") ? input.slice(1, -1) : input;
  if (!host.includes(":") || !/^[0-9a-f:.]+$/i.test(host)) return null;
  const halves = host.split("::");
  if (halves.length > 2) return null;
  const groupsOf = (text: string): number[] | null => {
    if (text === "") return [];
    const pieces = text.split(":");
    const out: number[] = [];
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i];
      if (i === pieces.length - 1 && piece.includes(".")) {
        // The IPv4 tail is strict dotted decimal (RFC 4291 and WHATWG alike).
        if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(piece)) return null;
        const octets = piece.split(".").map(Number);
        if (octets.some((o, j) => o > 255 || (piece.split(".")[j].length > 1 && piece.split(".")[j].startsWith("0")))) return null;
        out.push(octets[0] * 256 + octets[1], octets[2] * 256 + octets[3]);
      } else {
        if (!/^[0-9a-f]{1,4}$/i.test(piece)) return null;
        out.push(parseInt(piece, 16));
      }
    }
    return out;
  };
  const head = groupsOf(halves[0]);
  const tail = halves.length === 2 ? groupsOf(halves[1]) : [];
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  if (head.length + tail.length > 7) return null;
  return [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

// ---- Classification ------------------------------------------------------------------------

type V4Range = [base: string, bits: number, kind: AddressKind];

/** First match wins; anything not listed is public. */
const V4_RANGES: V4Range[] = [
  ["0.0.0.0", 8, "unspecified"], // "this network"; 0.0.0.0 reaches the machine itself on Linux
  ["127.0.0.0", 8, "loopback"],
  ["10.0.0.0", 8, "private"],
  ["172.16.0.0", 12, "private"],
  ["192.168.0.0", 16, "private"],
  ["100.100.100.200", 32, "metadata"], // Alibaba Cloud's metadata service, inside CGNAT
  ["100.64.0.0", 10, "private"], // carrier-grade NAT (RFC 6598)
  ["169.254.169.254", 32, "metadata"], // AWS, GCP, Azure, OpenStack, Oracle...
  ["169.254.0.0", 16, "link_local"],
  ["192.0.0.0", 24, "reserved"], // IETF protocol assignments
  ["192.0.2.0", 24, "reserved"], // documentation (TEST-NET-1)
  ["192.88.99.0", 24, "reserved"], // 6to4 relay anycast, deprecated
  ["198.18.0.0", 15, "reserved"], // benchmarking
  ["198.51.100.0", 24, "reserved"], // documentation (TEST-NET-2)
  ["203.0.113.0", 24, "reserved"], // documentation (TEST-NET-3)
  ["224.0.0.0", 4, "reserved"], // multicast
  ["240.0.0.0", 4, "reserved"], // future use, and 255.255.255.255 broadcast
];
const V4_TABLE = V4_RANGES.map(([base, bits, kind]) => ({ base: parseIPv4(base)!, size: 2 ** (32 - bits), kind }));

export function classifyIPv4(value: number): AddressKind {
  for (const { base, size, kind } of V4_TABLE) if (value >= base && value < base + size) return kind;
  return "public";
}

/** Whether the first `bits` bits of `groups` are those of `prefix` (its groups, the rest zero). */
function inV6(groups: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if ((groups[i] & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

const v4At = (groups: number[], i: number) => groups[i] * 65536 + groups[i + 1];

export function classifyIPv6(groups: number[]): AddressKind {
  const zerosBefore = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zerosBefore(8)) return "unspecified";
  if (zerosBefore(7) && groups[7] === 1) return "loopback";
  // IPv4-mapped (::ffff:a.b.c.d): the IPv4 address itself.
  if (zerosBefore(5) && groups[5] === 0xffff) return classifyIPv4(v4At(groups, 6));
  // IPv4-compatible (::a.b.c.d, deprecated by RFC 4291): as its IPv4, but never public.
  if (zerosBefore(6)) return publicAsReserved(classifyIPv4(v4At(groups, 6)));
  // NAT64 (RFC 6052): 64:ff9b::/96 carries an IPv4 address a translator reaches; 64:ff9b:1::/48 is local use.
  if (inV6(groups, [0x64, 0xff9b], 96)) return classifyIPv4(v4At(groups, 6));
  if (inV6(groups, [0x64, 0xff9b, 1], 48)) return "private";
  // 6to4 (RFC 3056): 2002:AABB:CCDD::/48 is routed to the IPv4 address AA.BB.CC.DD.
  if (inV6(groups, [0x2002], 16)) {
    const kind = classifyIPv4(v4At(groups, 1));
    return kind === "public" ? "public" : kind === "loopback" ? "reserved" : kind;
  }
  if (groups.join(":") === [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254].join(":")) return "metadata"; // AWS's IPv6 metadata address
  if (inV6(groups, [0xfe80], 10)) return "link_local";
  if (inV6(groups, [0xfc00], 7)) return "private"; // unique local (ULA)
  if (inV6(groups, [0xfec0], 10)) return "private"; // site-local, deprecated but still routed inside sites
  if (inV6(groups, [0xff00], 8)) return "reserved"; // multicast
  if (inV6(groups, [0x2001, 0xdb8], 32) || inV6(groups, [0x3fff], 20)) return "reserved"; // documentation
  if (inV6(groups, [0x2001], 32)) return "reserved"; // Teredo: its IPv4 is obfuscated, so it is not judged
  if (inV6(groups, [0x2001], 23)) return "reserved"; // IETF protocol assignments (ORCHID, benchmarking...)
  if (inV6(groups, [0x100], 64)) return "reserved"; // discard-only
  // Only 2000::/3 is global unicast today; everything else is unassigned or special.
  if (!inV6(groups, [0x2000], 3)) return "reserved";
  return "public";
}

function publicAsReserved(kind: AddressKind): AddressKind {
  return kind === "public" ? "reserved" : kind;
}

/** As the URL parser writes it (RFC 5952: the longest run of zeros as ::), in brackets. */
export function formatIPv6(groups: number[]): string {
  return new URL(`http://[${groups.map((g) => g.toString(16)).join(":")}]/`).hostname;
}

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/i;
/** Names whose answers we know without asking DNS. */
const METADATA_NAMES = new Set(["metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"]);
/** Special-use names only ever resolved inside a network (RFC 6762 .local, RFC 8375 home.arpa, ICANN's .internal). A single label (`ftp`) is not judged: a resolver may complete it either way. */
const PRIVATE_SUFFIXES = [".local", ".home.arpa", ".internal"];

/**
 * What a host is: an IP address in any form (brackets allowed for IPv6), a host name, or neither.
 * A name ending in a number (`1.2.3.999`) is read as IPv4, as WHATWG and resolvers do, so it must be one.
 */
export function classifyHost(input: string): HostClass {
  const host = input.trim().toLowerCase();
  if (host === "" || host.length > 255) return { type: "invalid" };
  if (host.includes(":") || host.startsWith("[")) {
    // A zone id (fe80::1%eth0) names an interface of this machine: never a server of anyone's.
    const groups = parseIPv6(host);
    return groups ? { type: "ip", address: formatIPv6(groups), kind: classifyIPv6(groups) } : { type: "invalid" };
  }
  if (endsInNumber(host)) {
    const v4 = parseIPv4(host);
    return v4 === null ? { type: "invalid" } : { type: "ip", address: formatIPv4(v4), kind: classifyIPv4(v4) };
  }
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  if (!name.split(".").every((label) => label.length <= 63 && LABEL.test(label))) return { type: "invalid" };
  if (name === "localhost" || name.endsWith(".localhost")) return { type: "name", name, kind: "loopback" };
  if (METADATA_NAMES.has(name)) return { type: "name", name, kind: "metadata" };
  if (PRIVATE_SUFFIXES.some((suffix) => name.endsWith(suffix))) return { type: "name", name, kind: "private" };
  return { type: "name", name, kind: "public" };
}

// ---- The verdict ---------------------------------------------------------------------------

const PRIVATE_WORDS =
  "a private network address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7, fec0::/10, or a name only a private network resolves), " +
  "reached only where the operator set ALLOW_PRIVATE_NETWORKS";
const KIND_WORDS: Record<Exclude<AddressKind, "public" | "loopback" | "private">, string> = {
  link_local: "a link-local address (169.254.0.0/16, fe80::/10), which is never reached",
  metadata: "a cloud metadata address, which is never reached",
  unspecified: "an unspecified address (0.0.0.0/8, ::), which is never reached",
  reserved: "a reserved address (multicast, broadcast, documentation, benchmarking or otherwise not public), which is never reached",
};

/** Whether an address of this kind may be reached under the policy. */
export function isReachable(kind: AddressKind, rules: OutboundPolicy = currentOutboundPolicy()): boolean {
  return kind === "public" || kind === "loopback" || (kind === "private" && rules.allowPrivate);
}

/**
 * Why a connection to `host` is refused, as the end of a sentence ("points to a link-local
 * address ..."), or null when it may be reached. A host name is judged by its name only: what it
 * resolves to is checked where the runtime tells us (checkedPeer).
 */
export function hostRefusal(host: string, rules: OutboundPolicy = currentOutboundPolicy()): string | null {
  const judged = classifyHost(host);
  if (judged.type === "invalid") return "is not a host name or an IP address";
  if (isReachable(judged.kind, rules)) return null;
  const bare = (h: string) => h.trim().toLowerCase().replace(/^\[|\]$/g, "");
  const shown = judged.type === "ip" && bare(judged.address) !== bare(host) ? `${host} (that is ${judged.address})` : host;
  const words = judged.kind === "private" ? PRIVATE_WORDS : KIND_WORDS[judged.kind as keyof typeof KIND_WORDS];
  return `points to ${shown}, ${words}`;
}

/** hostRefusal for a URL's host (its hostname, as the URL parser wrote it). */
export function urlRefusal(url: URL, rules: OutboundPolicy = currentOutboundPolicy()): string | null {
  // A non-special scheme (sftp://) keeps its host as typed: "%41" or "a b" are no host to connect to.
  if (classifyHost(url.hostname).type === "invalid") return `names ${JSON.stringify(url.hostname.slice(0, 100))} as its host, which is neither a host name nor an IP address`;
  return hostRefusal(url.hostname, rules);
}

/** The 422 message for a field holding a refused address (":attribute" is the field's name). */
export function addressMessage(refusal: string): string {
  return `The :attribute field ${refusal}.`;
}

/**
 * Why a TCP socket's peer is refused, or null. workerd reports in `opened.remoteAddress` the address
 * it was asked for ("host:port"), an IP or a name as given; Cloudflare's network may report the
 * address it reached. Whatever it gives is judged again, so a name that a runtime resolves and
 * reports is checked too.
 */
export function peerRefusal(info: { remoteAddress?: string } | undefined, rules: OutboundPolicy = currentOutboundPolicy()): string | null {
  const remote = info?.remoteAddress;
  if (!remote) return null;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(remote);
  const host = bracketed ? bracketed[1] : (remote.match(/:/g) ?? []).length === 1 ? remote.replace(/:\d+$/, "") : remote;
  return hostRefusal(host, rules);
}

type IssueSink = { addIssue(issue: { code: "custom"; message: string }): void };

/** A zod superRefine for a field holding a URL we will connect to: its host must be reachable. Not a URL: told elsewhere. */
export function checkOutboundUrl(value: string, ctx: IssueSink): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return;
  }
  const refusal = urlRefusal(url);
  if (refusal) ctx.addIssue({ code: "custom", message: addressMessage(refusal) });
}

/** A zod superRefine for a field holding a bare host (a file server's): it must be reachable. */
export function checkOutboundHost(value: string, ctx: IssueSink): void {
  const refusal = hostRefusal(value);
  if (refusal) ctx.addIssue({ code: "custom", message: addressMessage(refusal) });
}
